package dev.tandem.workflows.schedule;

import static dev.tandem.workflows.schedule.ScheduleAnnotations.EXCLUSIVE;
import static dev.tandem.workflows.schedule.ScheduleAnnotations.GROUP_SIZE;
import static dev.tandem.workflows.schedule.ScheduleAnnotations.POD_GROUP;
import static dev.tandem.workflows.schedule.ScheduleAnnotations.TIME_LIMIT;

import dev.tandem.workflows.Names;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Checks a pod before any Slurm job exists for it. Each problem is one message that says what is
 * wrong and what to fix; the workflow puts them in the pod's {@code SlurmScheduled=False} condition
 * (reason {@code InvalidPod}) and an event. Checks, in message order:
 *
 * <ol>
 *   <li>CPU and memory requests are Kubernetes quantities greater than zero (Slurm must know what
 *       to hold; a zero-sized job would let Slurm overcommit the node).
 *   <li>Extended resources are whole numbers with a GRES mapping ({@link PlaceholderJobs#gres}).
 *   <li>No {@code spec.nodeName}: a pod that names its node bypasses Slurm.
 *   <li>The grace period is at most {@code KillWait} minus the margin: on preemption Slurm signals
 *       the job and kills it {@code KillWait} seconds later, handing its resources to the
 *       preemptor; the pod must have stopped by then.
 *   <li>Every {@code tandem.dev/*} annotation is known ({@link ScheduleAnnotations}) and valid.
 * </ol>
 */
public final class PodValidator {
  private PodValidator() {}

  /** A Slurm partition, QOS, account or reservation name. */
  private static final Pattern SLURM_NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}");

  /** A pod group name (a DNS label). */
  private static final Pattern GROUP = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

  /** The problems of {@code p}; empty when it may be scheduled. */
  public static List<String> validate(PodRequest p, SchedulingConfig c) {
    List<String> problems = new ArrayList<>();
    positive(p, "cpu", "500m", problems);
    positive(p, "memory", "512Mi", problems);
    PlaceholderJobs.gres(p, c, problems);
    if (p.nodeName() != null && !p.nodeName().isEmpty()) {
      problems.add(
          "spec.nodeName is set (\""
              + p.nodeName()
              + "\"): a pod scheduled by "
              + Names.SCHEDULER_NAME
              + " must not name its node; remove nodeName");
    }
    long grace = p.graceSeconds();
    if (grace < 0 || grace > c.maxGraceSeconds()) {
      problems.add(
          "terminationGracePeriodSeconds "
              + grace
              + " is too long: Slurm kills a preempted job "
              + c.killWaitSeconds()
              + " s after signalling it (KillWait), so the pod may take at most "
              + c.maxGraceSeconds()
              + " s (KillWait minus a "
              + c.graceMarginSeconds()
              + " s margin); set terminationGracePeriodSeconds to "
              + Math.max(0, c.maxGraceSeconds())
              + " or less");
    }
    annotations(p.annotations(), problems);
    return problems;
  }

  private static void positive(PodRequest p, String resource, String example, List<String> out) {
    String q = p.requests().get(resource);
    BigDecimal v = Quantities.parse(q);
    if (q == null) {
      out.add(
          "requests."
              + resource
              + " is missing: set a "
              + resource
              + " request (e.g. "
              + example
              + ") on the pod's containers");
    } else if (v == null) {
      out.add("requests." + resource + " \"" + q + "\" is not a Kubernetes quantity");
    } else if (v.signum() <= 0) {
      out.add("requests." + resource + " \"" + q + "\" must be greater than zero");
    } else if (v.compareTo(BigDecimal.valueOf(Long.MAX_VALUE / 2)) > 0) {
      out.add("requests." + resource + " \"" + q + "\" is too large");
    }
  }

  private static void annotations(Map<String, String> a, List<String> out) {
    for (Map.Entry<String, String> e : a.entrySet()) {
      String key = e.getKey();
      String v = e.getValue() == null ? "" : e.getValue();
      if (!key.startsWith(Names.PREFIX) || ScheduleAnnotations.TANDEM_SET.contains(key)) {
        continue;
      }
      if (!ScheduleAnnotations.USER_SET.contains(key)) {
        out.add(
            "unknown annotation "
                + key
                + ": remove it or use one of "
                + String.join(", ", ScheduleAnnotations.USER_SET));
      } else if (key.equals(TIME_LIMIT)) {
        if (SlurmTime.minutes(v) == null) {
          out.add(
              "annotation "
                  + key
                  + " \""
                  + v
                  + "\" is not a Slurm time limit: use minutes, M:S, H:M:S, D-H, D-H:M or"
                  + " D-H:M:S (at least one minute)");
        }
      } else if (key.equals(EXCLUSIVE)) {
        if (Exclusivity.parse(v) == null) {
          out.add("annotation " + key + " \"" + v + "\" must be none, user or exclusive");
        }
      } else if (key.equals(POD_GROUP)) {
        if (!GROUP.matcher(v).matches()) {
          out.add(
              "annotation "
                  + key
                  + " \""
                  + v
                  + "\" must be a DNS label (lower-case letters, digits and '-', at most 63)");
        } else if (!a.containsKey(GROUP_SIZE)) {
          out.add("annotation " + key + " needs " + GROUP_SIZE + " (the number of pods in it)");
        }
      } else if (key.equals(GROUP_SIZE)) {
        if (!v.matches("[0-9]{1,4}") || Integer.parseInt(v) < 1) {
          out.add("annotation " + key + " \"" + v + "\" must be a whole number >= 1");
        } else if (!a.containsKey(POD_GROUP)) {
          out.add("annotation " + key + " needs " + POD_GROUP + " (the group's name)");
        }
      } else if (!SLURM_NAME.matcher(v).matches()) {
        out.add(
            "annotation "
                + key
                + " \""
                + v
                + "\" is not a Slurm name: use letters, digits, '_', '.' and '-' (at most 64)");
      }
    }
  }
}
