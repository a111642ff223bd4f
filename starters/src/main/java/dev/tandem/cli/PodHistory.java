package dev.tandem.cli;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.schedule.PodScheduleStatus;
import dev.tandem.workflows.schedule.ScheduleAnnotations;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintWriter;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * {@code tandem history} for a pod scheduled through Slurm: {@code pod/NAME} (namespace from {@code
 * -k}), {@code pod/NS/NAME} (the uid is read from Kubernetes; for a pod that is gone, from the
 * events Tandem recorded on it), or the workflow id {@code schedule/NS/NAME/UID} itself. A gang
 * ({@code group/NAME}, {@code group/NS/NAME}, {@code schedule-group/NS/NAME}, or one of its live
 * members by name) shows its group's timeline ({@link GroupHistory}).
 */
final class PodHistory {
  private PodHistory() {}

  /** A pod name: a DNS subdomain. */
  static final Pattern POD_NAME =
      Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");

  /** A gang's name ({@code tandem.dev/pod-group}): a DNS label, as the pod validator checks it. */
  static final Pattern GROUP_NAME = Pattern.compile("^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$");

  /**
   * Which pod: by name (uid read from Kubernetes), or by its workflow id (uid given); or which gang
   * ({@code group}: {@code name} is the group's, and there is no uid).
   *
   * @param gone the pod no longer exists; its uid came from its events
   * @param group a gang, whose one workflow {@code schedule-group/<ns>/<group>} schedules its
   *     members
   */
  record Target(String namespace, String name, String uid, boolean gone, boolean group) {
    Target(String namespace, String name, String uid) {
      this(namespace, name, uid, false, false);
    }

    static Target group(String namespace, String group) {
      return new Target(namespace, group, null, false, true);
    }

    String workflowId() {
      return group
          ? Names.podGroupWorkflowId(namespace, name)
          : Names.scheduleWorkflowId(namespace, name, uid);
    }

    @Override
    public String toString() {
      return (group ? "group " : "pod ") + namespace + "/" + name;
    }
  }

  /** True when {@code arg} names a pod or a gang rather than a Tandem node. */
  static boolean isPod(String arg) {
    return arg != null
        && (arg.startsWith("pod/")
            || arg.startsWith("schedule/")
            || arg.startsWith("group/")
            || arg.startsWith("schedule-group/"));
  }

  /** The target, or a message (for exit 2) saying what a pod argument looks like. */
  static Target parse(String arg, String defaultNamespace) {
    String[] p = arg.split("/", -1);
    Target t;
    if (p[0].equals("pod") && p.length == 2) {
      t = new Target(defaultNamespace, p[1], null);
    } else if (p[0].equals("pod") && p.length == 3) {
      t = new Target(p[1], p[2], null);
    } else if (p[0].equals("schedule") && p.length == 4 && !p[3].isEmpty()) {
      t = new Target(p[1], p[2], p[3]);
    } else if (p[0].equals("group") && p.length == 2) {
      t = Target.group(defaultNamespace, p[1]);
    } else if ((p[0].equals("group") || p[0].equals("schedule-group")) && p.length == 3) {
      t = Target.group(p[1], p[2]);
    } else {
      throw new IllegalArgumentException(
          "'"
              + arg
              + "' is not a pod: use pod/NAME, pod/NAMESPACE/NAME or the workflow id"
              + " schedule/NAMESPACE/NAME/UID; for a gang group/NAME, group/NAMESPACE/NAME or"
              + " schedule-group/NAMESPACE/NAME");
    }
    if (!NodeTargetOptions.DNS_LABEL.matcher(t.namespace()).matches()) {
      throw new IllegalArgumentException(
          "'"
              + t.namespace()
              + "' is not a Kubernetes namespace (lower-case letters, digits, '-')");
    }
    if (t.group() && !GROUP_NAME.matcher(t.name()).matches()) {
      throw new IllegalArgumentException(
          "'" + t.name() + "' is not a group name (a DNS label: lower-case letters, digits, '-')");
    }
    if (!t.group() && (!POD_NAME.matcher(t.name()).matches() || t.name().length() > 253)) {
      throw new IllegalArgumentException("'" + t.name() + "' is not a pod name");
    }
    return t;
  }

  /**
   * The uid from Kubernetes when only the name was given: the pod's own, or, for a pod that is
   * gone, the one on the newest event Tandem recorded on a pod of that name (Kubernetes keeps
   * events for an hour by default); a gang member, live or gone, leads to its group. Fails saying
   * what to do instead.
   */
  static Target resolve(Target t, String kubeconfig) {
    if (t.uid() != null || t.group()) {
      return t;
    }
    Pod pod;
    Optional<PodLookup.Evidence> fromEvents = Optional.empty();
    String eventsUnread = "";
    try (KubernetesClient k8s = PodLookup.kubernetes(kubeconfig)) {
      pod = k8s.pods().inNamespace(t.namespace()).withName(t.name()).get();
      if (pod == null) {
        try {
          fromEvents = PodLookup.fromEvents(k8s, t.namespace(), t.name());
        } catch (RuntimeException e) {
          // e.g. no permission to list events: the pod is still not found, say why no event helped
          eventsUnread = " (its events could not be read: " + e.getMessage() + ")";
        }
      }
    } catch (CliException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new CliException(
          "cannot read "
              + t
              + " from Kubernetes ("
              + e.getMessage()
              + "): check --kubeconfig/KUBECONFIG, or give the workflow id"
              + " schedule/NAMESPACE/NAME/UID");
    }
    if (pod == null) {
      String unread = eventsUnread;
      return fromEvents
          .map(
              ev ->
                  ev.group() != null && GROUP_NAME.matcher(ev.group()).matches()
                      // a gang member: its group's workflow scheduled it
                      ? Target.group(t.namespace(), ev.group())
                      : new Target(t.namespace(), t.name(), ev.uid(), true, false))
          .orElseThrow(
              () ->
                  new CliException(
                      "no "
                          + t
                          + " in Kubernetes, and no event of Tandem's names it"
                          + unread
                          + ": for a deleted pod give its workflow id, schedule/"
                          + t.namespace()
                          + "/"
                          + t.name()
                          + "/<uid>"));
    }
    String scheduler = pod.getSpec() == null ? null : pod.getSpec().getSchedulerName();
    if (!Names.SCHEDULER_NAME.equals(scheduler)) {
      throw new CliException(
          t
              + " is not scheduled through Slurm (schedulerName "
              + scheduler
              + ", not "
              + Names.SCHEDULER_NAME
              + ")");
    }
    Map<String, String> annotations = pod.getMetadata().getAnnotations();
    String group = annotations == null ? null : annotations.get(ScheduleAnnotations.POD_GROUP);
    if (group != null && GROUP_NAME.matcher(group).matches()) {
      return Target.group(t.namespace(), group); // a gang member: its group's workflow schedules it
    }
    return new Target(t.namespace(), t.name(), pod.getMetadata().getUid());
  }

  static int print(TemporalSession session, Target t, PrintWriter out, Output.Format format) {
    session.requireWorker();
    if (t.group()) {
      return GroupHistory.print(session, t, out, format);
    }
    PodScheduleStatus s =
        PodLookup.status(session, t.workflowId())
            .orElseThrow(
                () ->
                    new CliException(
                        "no scheduling workflow "
                            + t.workflowId()
                            + " for "
                            + t
                            + " (not seen by the Tandem watcher yet; a gang member's is its"
                            + " group's: tandem history group/"
                            + t.namespace()
                            + "/GROUP)"));
    Output.history(out, format, header(t, s), "PHASE", s.timeline());
    return 0;
  }

  static String header(Target t, PodScheduleStatus s) {
    StringBuilder b = new StringBuilder();
    b.append(t).append(" (uid ").append(t.uid());
    if (t.gone()) {
      b.append(", deleted: the uid of its last events");
    }
    b.append("): ").append(s.phase().label());
    if (s.jobId() != 0) {
      b.append(", job ").append(s.jobId());
      if (s.jobState() != null) {
        b.append(' ').append(s.jobState());
      }
    }
    if (s.slurmNode() != null) {
      b.append(", Slurm node ").append(s.slurmNode());
    }
    if (s.k8sNode() != null) {
      b.append(", bound to ").append(s.k8sNode());
    }
    if (s.problem() != null) {
      b.append("; problem: ").append(s.problem());
    }
    return b.toString();
  }
}
