package dev.tandem.workflows.schedule;

import static dev.tandem.workflows.schedule.ScheduleAnnotations.GROUP_SIZE;
import static dev.tandem.workflows.schedule.ScheduleAnnotations.POD_GROUP;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Checks the live members of a gang before its job exists. Every problem names the member and what
 * to fix:
 *
 * <ol>
 *   <li>Each member on its own ({@link PodValidator}), in the group's namespace and with the
 *       group's {@code tandem.dev/pod-group}.
 *   <li>The group size is the {@code tandem.dev/group-size} most members give (a tie goes to the
 *       first member by name); a member giving another size is invalid.
 *   <li>The job each member would get ({@link PlaceholderJobs#from}) must be the same for all:
 *       Slurm gives every node of one job the same allocation and settings. The shape most members
 *       ask for wins (a tie goes to the first member by name); the others are invalid.
 *   <li>The group as a whole: more live members than its size (which pod is the extra cannot be
 *       told, so the group waits until one goes), or Slurm refused its job.
 * </ol>
 */
final class GroupValidator {
  private GroupValidator() {}

  /**
   * @param size the group size the members agree on, 0 if none gives a valid one
   * @param members problems of single members, by name (only members with problems)
   * @param group problems of the group as a whole
   */
  record Verdict(int size, Map<String, List<String>> members, List<String> group) {
    boolean ok() {
      return members.isEmpty() && group.isEmpty();
    }
  }

  static Verdict check(
      String namespace,
      String group,
      List<PodRequest> live,
      SchedulingConfig c,
      String slurmRefused) {
    Map<String, List<String>> problems = new TreeMap<>();
    Map<String, Integer> sizes = new LinkedHashMap<>();
    for (PodRequest p : live) {
      List<String> own = new ArrayList<>(PodValidator.validate(p, c));
      if (!namespace.equals(p.namespace())) {
        own.add("the pod is in namespace " + p.namespace() + ", not " + namespace);
      }
      if (!group.equals(p.annotation(POD_GROUP))) {
        own.add(
            "annotation " + POD_GROUP + " is \"" + p.annotation(POD_GROUP) + "\", not " + group);
      }
      String sz = p.annotation(GROUP_SIZE);
      if (sz != null && sz.matches("[0-9]{1,4}") && Integer.parseInt(sz) >= 1) {
        sizes.put(p.name(), Integer.parseInt(sz));
      }
      if (!own.isEmpty()) {
        problems.put(p.name(), own);
      }
    }
    Integer size = majority(sizes);
    for (Map.Entry<String, Integer> e : sizes.entrySet()) {
      if (!e.getValue().equals(size)) {
        add(
            problems,
            e.getKey(),
            "annotation "
                + GROUP_SIZE
                + " is "
                + e.getValue()
                + " but the other members of group "
                + group
                + " ("
                + others(sizes, size)
                + ") say "
                + size
                + ": every member must give the same size");
      }
    }
    Map<String, String> shapes = new LinkedHashMap<>();
    for (PodRequest p : live) {
      if (!problems.containsKey(p.name())) {
        shapes.put(p.name(), shape(PlaceholderJobs.from(p, c)));
      }
    }
    String shape = majority(shapes);
    for (Map.Entry<String, String> e : shapes.entrySet()) {
      if (!e.getValue().equals(shape)) {
        add(
            problems,
            e.getKey(),
            "the pod asks for a job of "
                + e.getValue()
                + " per node, but the other members of group "
                + group
                + " ("
                + others(shapes, shape)
                + ") ask for "
                + shape
                + ": every member must request the same resources and tandem.dev/* job settings,"
                + " because Slurm gives every node of the group's job the same allocation");
      }
    }
    List<String> whole = new ArrayList<>();
    int n = size == null ? 0 : size;
    if (n > 0 && live.size() > n) {
      whole.add(
          "group "
              + group
              + " has "
              + live.size()
              + " pods but "
              + GROUP_SIZE
              + " is "
              + n
              + ": delete the extra pod(s) ("
              + String.join(", ", live.stream().map(PodRequest::name).toList())
              + " are here)");
    }
    if (slurmRefused != null) {
      whole.add("Slurm refused the group's placeholder job: " + slurmRefused);
    }
    return new Verdict(n, problems, whole);
  }

  /** The job settings that must be equal on every node, in words. */
  static String shape(PlaceholderJob j) {
    StringBuilder b = new StringBuilder();
    b.append("cpus=").append(j.cpusPerNode()).append(" memory=").append(j.memoryMbPerNode());
    b.append("MiB");
    append(b, "gres", j.gresPerNode());
    append(b, "partition", j.partition());
    append(b, "qos", j.qos());
    append(b, "account", j.account());
    append(b, "time-limit", j.timeLimitMinutes());
    append(b, "reservation", j.reservation());
    append(
        b,
        "exclusive",
        j.exclusivity() == null ? null : j.exclusivity().name().toLowerCase(java.util.Locale.ROOT));
    append(b, "nice", j.nice());
    return b.toString();
  }

  private static void append(StringBuilder b, String key, Object value) {
    if (value != null) {
      b.append(' ').append(key).append('=').append(value);
    }
  }

  /** The value most entries have; a tie goes to the first entry's value among the tied. */
  private static <T> T majority(Map<String, T> byName) {
    Map<T, Integer> counts = new LinkedHashMap<>();
    for (T v : byName.values()) {
      counts.merge(v, 1, Integer::sum);
    }
    T best = null;
    int most = 0;
    for (T v : byName.values()) {
      if (counts.get(v) > most) {
        best = v;
        most = counts.get(v);
      }
    }
    return best;
  }

  private static <T> String others(Map<String, T> byName, T value) {
    return String.join(
        ", ",
        byName.entrySet().stream()
            .filter(e -> e.getValue().equals(value))
            .map(Map.Entry::getKey)
            .toList());
  }

  private static void add(Map<String, List<String>> problems, String name, String problem) {
    problems.computeIfAbsent(name, k -> new ArrayList<>()).add(problem);
  }
}
