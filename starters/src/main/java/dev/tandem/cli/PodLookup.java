package dev.tandem.cli;

import dev.tandem.k8s.KubeClients;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.schedule.PodGroupStatus;
import dev.tandem.workflows.schedule.PodGroupWorkflow;
import dev.tandem.workflows.schedule.PodScheduleStatus;
import dev.tandem.workflows.schedule.PodScheduleWorkflow;
import dev.tandem.workflows.schedule.ScheduleAnnotations;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.temporal.client.WorkflowException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;

/**
 * A pod scheduled through Slurm as the CLI sees it: its scheduling workflow's {@code status}
 * ({@code schedule/<ns>/<pod>/<uid>}, or its gang's {@code schedule-group/<ns>/<group>}), and for
 * {@code tandem history pod/NAME} the pod's uid, read from Kubernetes, or for a deleted pod from
 * the events Tandem recorded on it.
 */
final class PodLookup {
  private PodLookup() {}

  /** The pod's scheduling status, or empty when its workflow does not exist. */
  static Optional<PodScheduleStatus> status(TemporalSession session, String workflowId) {
    try {
      return Optional.of(
          session.query(
              workflowId,
              () ->
                  session
                      .client()
                      .newWorkflowStub(PodScheduleWorkflow.class, workflowId)
                      .status()));
    } catch (WorkflowException e) {
      if (NodeLookup.notFound(e)) {
        return Optional.empty();
      }
      throw new CliException("cannot query " + workflowId + ": " + e.getMessage());
    }
  }

  /** A gang's status from its group workflow, or empty when that workflow does not exist. */
  static Optional<PodGroupStatus> groupStatus(TemporalSession session, String workflowId) {
    try {
      return Optional.of(
          session.query(
              workflowId,
              () -> session.client().newWorkflowStub(PodGroupWorkflow.class, workflowId).status()));
    } catch (WorkflowException e) {
      if (NodeLookup.notFound(e)) {
        return Optional.empty();
      }
      throw new CliException("cannot query " + workflowId + ": " + e.getMessage());
    }
  }

  /**
   * The uid of the pod named {@code name} on the newest event Tandem recorded on a pod of that name
   * in {@code namespace}, or empty. Tandem records its events on a pod scheduled through Slurm with
   * the pod's uid (bound, queued, preempted, ended, invalid), and Kubernetes keeps events for an
   * hour by default ({@code kube-apiserver --event-ttl}), so a pod deleted within that time is
   * found by name. Only Tandem's events count: a later pod of the same name that Tandem never
   * scheduled does not hide the one it did. A gang member's events also name its group.
   */
  static Optional<Evidence> fromEvents(KubernetesClient k8s, String namespace, String name) {
    return k8s
        .v1()
        .events()
        .inNamespace(namespace)
        .withField("involvedObject.kind", "Pod")
        .withField("involvedObject.name", name)
        .list()
        .getItems()
        .stream()
        .filter(e -> e.getInvolvedObject() != null && name.equals(e.getInvolvedObject().getName()))
        .filter(
            e ->
                e.getInvolvedObject().getUid() != null && !e.getInvolvedObject().getUid().isBlank())
        .filter(PodLookup::fromTandem)
        .max(Comparator.comparing(PodLookup::when))
        .map(e -> new Evidence(e.getInvolvedObject().getUid(), groupOf(e)));
  }

  /**
   * What the newest of Tandem's events on a pod says about it: its uid, and for a gang member its
   * group (annotation {@code tandem.dev/pod-group} on the event), else null.
   */
  record Evidence(String uid, String group) {}

  private static String groupOf(Event e) {
    Map<String, String> a = e.getMetadata() == null ? null : e.getMetadata().getAnnotations();
    return a == null ? null : a.get(ScheduleAnnotations.POD_GROUP);
  }

  private static boolean fromTandem(Event e) {
    return Names.EVENT_COMPONENT.equals(e.getReportingComponent())
        || (e.getSource() != null && Names.EVENT_COMPONENT.equals(e.getSource().getComponent()));
  }

  /** When an event last happened: its last timestamp, else its event time, else its creation. */
  private static Instant when(Event e) {
    for (String t :
        new String[] {
          e.getLastTimestamp(),
          e.getEventTime() == null ? null : e.getEventTime().getTime(),
          e.getFirstTimestamp(),
          e.getMetadata() == null ? null : e.getMetadata().getCreationTimestamp()
        }) {
      if (t != null && !t.isBlank()) {
        try {
          return Instant.parse(t);
        } catch (DateTimeParseException ignored) {
          // try the next
        }
      }
    }
    return Instant.EPOCH;
  }

  /**
   * A client from {@code kubeconfig}; when null, from {@code KUBECONFIG} or {@code ~/.kube/config}
   * (fabric8's usual discovery), else from a running {@code tandem dev}'s kubeconfig.
   */
  static KubernetesClient kubernetes(String kubeconfig) {
    if (kubeconfig == null) {
      kubeconfig =
          devKubeconfig(
              System.getenv("KUBECONFIG"),
              Path.of(System.getProperty("user.home"), ".kube", "config"),
              Path.of(TandemCli.DEV_STATE_DIR, "kubeconfig"));
    }
    try {
      Config c =
          kubeconfig == null
              ? Config.autoConfigure(null)
              : Config.fromKubeconfig(null, Files.readString(Path.of(kubeconfig)), kubeconfig);
      // One try: the command reports an unreachable API at once rather than retrying for long.
      c.setRequestRetryBackoffLimit(0);
      return KubeClients.build(c);
    } catch (java.io.IOException e) {
      throw new CliException("cannot read kubeconfig " + kubeconfig + ": " + e.getMessage());
    } catch (RuntimeException e) {
      throw new CliException("kubeconfig " + kubeconfig + " is not usable: " + e.getMessage());
    }
  }

  /**
   * {@code tandem dev}'s kubeconfig when nothing else names a cluster (no {@code KUBECONFIG}, no
   * {@code ~/.kube/config}) and it exists; else null (fabric8's discovery).
   */
  static String devKubeconfig(String env, Path home, Path dev) {
    if ((env != null && !env.isBlank()) || Files.exists(home) || !Files.exists(dev)) {
      return null;
    }
    return dev.toString();
  }
}
