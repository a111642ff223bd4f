package dev.tandem.workflows.schedule;

import static dev.tandem.workflows.schedule.ScheduleAnnotations.ACCOUNT;
import static dev.tandem.workflows.schedule.ScheduleAnnotations.EXCLUSIVE;
import static dev.tandem.workflows.schedule.ScheduleAnnotations.GROUP_SIZE;
import static dev.tandem.workflows.schedule.ScheduleAnnotations.PARTITION;
import static dev.tandem.workflows.schedule.ScheduleAnnotations.POD_GROUP;
import static dev.tandem.workflows.schedule.ScheduleAnnotations.QOS;
import static dev.tandem.workflows.schedule.ScheduleAnnotations.RESERVATION;
import static dev.tandem.workflows.schedule.ScheduleAnnotations.TIME_LIMIT;

import dev.tandem.workflows.Names;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Maps a pod to its placeholder job.
 *
 * <ol>
 *   <li>CPU and memory requests become whole CPUs and MiB, rounded up ({@link Quantities}).
 *   <li>Every other request except {@code ephemeral-storage} is an extended resource and becomes
 *       GRES through the configured map ({@link #gres}); one without an entry makes the pod invalid
 *       rather than being dropped, since a job without the GPUs the pod needs would bind it where a
 *       real kubelet refuses it.
 *   <li>Partition, QOS, account, time limit, reservation and exclusivity come from {@code
 *       tandem.dev/*} annotations; the partition falls back to the configured default, the QOS to
 *       the PriorityClass map, which also gives the nice value.
 *   <li>The job is tagged with the pod uid (in name and comment), and never requeued (see {@link
 *       PlaceholderJob#requeue}). It names no nodes: Slurm chooses.
 * </ol>
 */
public final class PlaceholderJobs {
  private PlaceholderJobs() {}

  /** Requests that are not extended resources (ephemeral storage is not held in Slurm). */
  static final Set<String> NOT_GRES = Set.of("cpu", "memory", "ephemeral-storage");

  /** The placeholder job of a valid pod; throws if {@link PodValidator} finds problems. */
  public static PlaceholderJob from(PodRequest p, SchedulingConfig c) {
    List<String> problems = PodValidator.validate(p, c);
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException("invalid pod: " + String.join("; ", problems));
    }
    Map<String, String> a = p.annotations();
    PriorityMapping prio = priority(p, c);
    String qos = qos(p, c);
    String partition = a.get(PARTITION) != null ? a.get(PARTITION) : c.defaultPartition();
    Exclusivity ex =
        a.get(EXCLUSIVE) == null ? Exclusivity.NONE : Exclusivity.parse(a.get(EXCLUSIVE));
    int nodes = a.get(GROUP_SIZE) == null ? 1 : Integer.parseInt(a.get(GROUP_SIZE));
    String gres = gres(p, c, new ArrayList<>());
    return new PlaceholderJob(
        PlaceholderJob.nameFor(p.uid()),
        PlaceholderJob.commentFor(p.uid(), "pod=" + p.namespace() + "/" + p.name()),
        p.uid(),
        nodes,
        Quantities.cpus(p.requests().get("cpu")),
        Quantities.memoryMb(p.requests().get("memory")),
        gres,
        partition,
        qos,
        a.get(ACCOUNT) != null ? a.get(ACCOUNT) : c.namespaceAccounts().get(p.namespace()),
        a.get(TIME_LIMIT) == null ? null : SlurmTime.minutes(a.get(TIME_LIMIT)),
        a.get(RESERVATION),
        ex,
        prio == null ? null : prio.nice(),
        false);
  }

  /**
   * The QOS the pod's job asks for: its {@code tandem.dev/qos} annotation, else its PriorityClass's
   * in the map, else null (the account's default QOS).
   */
  public static String qos(PodRequest p, SchedulingConfig c) {
    String annotated = p.annotations() == null ? null : p.annotations().get(QOS);
    if (annotated != null) {
      return annotated;
    }
    PriorityMapping prio = priority(p, c);
    return prio == null ? null : prio.qos();
  }

  private static PriorityMapping priority(PodRequest p, SchedulingConfig c) {
    return p.priorityClassName() == null ? null : c.priorityClasses().get(p.priorityClassName());
  }

  /**
   * The one placeholder job of a gang of {@code size} pods in {@code namespace}, sized like {@code
   * member} on each of its {@code size} nodes (the caller checked that every member asks for the
   * same job, see {@link GroupValidator}). Tagged with {@code tag} ({@link Names#podGroupJobTag})
   * instead of a pod uid, so the tag stays the same whichever member is replaced.
   */
  public static PlaceholderJob forGroup(
      String tag, PodRequest member, SchedulingConfig c, int size) {
    PlaceholderJob one = from(member, c);
    return new PlaceholderJob(
        PlaceholderJob.nameFor(tag),
        PlaceholderJob.commentFor(
            tag, "group=" + member.namespace() + "/" + member.annotations().get(POD_GROUP)),
        tag,
        size,
        one.cpusPerNode(),
        one.memoryMbPerNode(),
        one.gresPerNode(),
        one.partition(),
        one.qos(),
        one.account(),
        one.timeLimitMinutes(),
        one.reservation(),
        one.exclusivity(),
        one.nice(),
        false);
  }

  /**
   * The GRES string for the pod's extended resources ({@code gpu:a100:2,fpga:1}, in resource-name
   * order), or null if it requests none; what cannot be mapped is added to {@code problems}. A
   * resource {@code r} requested with count n maps through key {@code r=<model>} when the pod's
   * node selector gives the GPU model label and the map has that key, else through key {@code r}.
   */
  static String gres(PodRequest p, SchedulingConfig c, List<String> problems) {
    List<String> parts = new ArrayList<>();
    String model = c.gpuModelLabel() == null ? null : p.nodeSelector().get(c.gpuModelLabel());
    for (Map.Entry<String, String> r : p.requests().entrySet()) {
      String resource = r.getKey();
      if (NOT_GRES.contains(resource)) {
        continue;
      }
      var value = Quantities.parse(r.getValue());
      long count;
      try {
        count = value == null ? -1 : value.longValueExact();
      } catch (ArithmeticException e) {
        count = -1;
      }
      if (count < 0) {
        problems.add(
            "requests." + resource + " \"" + r.getValue() + "\" must be a whole number >= 0");
        continue;
      }
      if (count == 0) {
        continue;
      }
      String name = model == null ? null : c.gres().get(resource + "=" + model);
      if (name == null) {
        name = c.gres().get(resource);
      }
      if (name == null) {
        problems.add(
            "requests."
                + resource
                + (model == null ? "" : " (model " + model + ")")
                + " has no GRES mapping: remove the request or ask the administrator to map it"
                + " to a Slurm GRES");
        continue;
      }
      parts.add(name + ":" + count);
    }
    return parts.isEmpty() ? null : String.join(",", parts);
  }
}
