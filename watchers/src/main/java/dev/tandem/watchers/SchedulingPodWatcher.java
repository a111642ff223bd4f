package dev.tandem.watchers;

import dev.tandem.k8s.PodViews;
import dev.tandem.k8s.SchedulingPods;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.schedule.GroupMember;
import dev.tandem.workflows.schedule.PodRequest;
import dev.tandem.workflows.schedule.ScheduleAnnotations;
import dev.tandem.workflows.schedule.ScheduleConditions;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Watches the pods Slurm schedules ({@code spec.schedulerName: tandem-slurm}) and tells each pod's
 * scheduling workflow about it. The API server filters by that field, so only these pods are
 * cached, never all of the cluster's.
 *
 * <p>Gang members (annotation {@code tandem.dev/pod-group}) go to their group's one workflow
 * instead (see {@link #route}). A pod that waits (no node, not terminating) gets signal-with-start:
 * its workflow starts on the first event, and a restarted watcher sending again reaches the same
 * one. A bound or terminating pod and a deleted one only get a plain {@code podObserved} (a
 * workflow is never started for a pod that is already placed or going away). Events are coalesced
 * per pod uid and sent only when something the workflow acts on changed, or on a resync pass.
 *
 * <p>Also the router of the Slurm job tracker: {@link #workflowIdForTag} maps a placeholder job's
 * tag to the workflow that owns it.
 */
public final class SchedulingPodWatcher extends InformerWatcher<Pod> implements JobRoutes {
  static final String BY_UID = "byUid";
  static final String BY_GROUP = "byGroup";

  /**
   * What to send for a pod: signal-with-start ({@code start}) or a plain signal to {@code
   * workflowId}; {@code group} is the gang's name for a gang member, else null.
   */
  record Route(String workflowId, boolean start, String group) {}

  private final KubernetesClient client;
  private final Coalescer coalescer;
  private final WorkflowSignals signals;
  private final WatcherMetrics metrics;
  private final Duration resync;

  public SchedulingPodWatcher(
      KubernetesClient client,
      Coalescer coalescer,
      WorkflowSignals signals,
      WatcherMetrics metrics,
      Duration resync) {
    super("scheduling-pod", metrics);
    this.client = client;
    this.coalescer = coalescer;
    this.signals = signals;
    this.metrics = metrics;
    this.resync = resync;
  }

  @Override
  protected SharedIndexInformer<Pod> newInformer() {
    SharedIndexInformer<Pod> informer =
        client
            .pods()
            .inAnyNamespace()
            .withField("spec.schedulerName", Names.SCHEDULER_NAME)
            .runnableInformer(resync.toMillis());
    informer.addIndexers(
        Map.of(
            BY_UID,
            p -> List.of(String.valueOf(p.getMetadata().getUid())),
            BY_GROUP,
            p -> groupTag(p).map(List::of).orElse(List.of())));
    return informer;
  }

  /**
   * Where a pod's events go. A gang member (annotation {@code tandem.dev/pod-group}) goes to its
   * group's workflow {@code schedule-group/<ns>/<group>} (signal {@code memberObserved}), any other
   * pod to its own {@code schedule/<ns>/<pod>/<uid>} (signal {@code podObserved}). Either is
   * started only for a pod that waits (no node, not terminating, not deleted).
   *
   * @param deleted the pod is gone from the API server (its last state)
   */
  static Route route(Pod pod, boolean deleted) {
    var meta = pod.getMetadata();
    boolean waiting = !deleted && waiting(pod);
    Map<String, String> a = meta.getAnnotations();
    String group = a == null ? null : a.get(ScheduleAnnotations.POD_GROUP);
    if (!isBlank(group)) {
      return new Route(Names.podGroupWorkflowId(meta.getNamespace(), group), waiting, group);
    }
    String id = Names.scheduleWorkflowId(meta.getNamespace(), meta.getName(), meta.getUid());
    return new Route(id, waiting && !markedInvalid(pod), null);
  }

  /**
   * The pod carries {@code SlurmScheduled=False} reason {@code InvalidPod}: its workflow ended
   * INVALID, for good. A signal-with-start to a closed workflow starts a new run, so without this
   * every resync and every watcher restart ran the pod's workflow again: the validation's event
   * once more, and for a pod Slurm refused a submit again, whose answer on Slurm 22.05 can be the
   * FAILED record the first refusal left, for which the new run evicted the pod. A pod whose
   * request changes in place (its annotations) is still started ({@link #onUpdate}). Gang members
   * are left alone: their group's workflow does not end when it is invalid.
   */
  static boolean markedInvalid(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
      return false;
    }
    return pod.getStatus().getConditions().stream()
        .anyMatch(
            c ->
                ScheduleConditions.SLURM_SCHEDULED.equals(c.getType())
                    && "False".equals(c.getStatus())
                    && ScheduleConditions.INVALID_POD.equals(c.getReason()));
  }

  @Override
  protected void onAdd(Pod pod) {
    send(pod, route(pod, false), PodViews.of(pod), null);
  }

  @Override
  protected void onUpdate(Pod old, Pod pod, boolean resyncPass) {
    PodView before = PodViews.of(old);
    PodView after = PodViews.of(pod);
    Route route = route(pod, false);
    if (resyncPass) {
      send(pod, route, after, null);
      return;
    }
    if (!sameForScheduling(before, after)) {
      if (route.group() == null && boundByTandem(before, after, pod)) {
        return; // the workflow that bound it knows already
      }
      send(pod, route, after, null);
      return;
    }
    // A gang's workflow keeps its members' requests, and a waiting pod's request goes with its
    // signal-with-start; a placed single pod's workflow acts on the view only.
    // A pod marked invalid whose request changed in place is started again: the new run decides.
    Route start = route.group() != null ? route : new Route(route.workflowId(), waiting(pod), null);
    if (start.group() != null || start.start()) {
      PodRequest request = SchedulingPods.request(pod);
      if (!SchedulingPods.request(old).equals(request)) {
        send(pod, start, after, request);
      }
    }
  }

  /**
   * The only change is the bind a pod's own scheduling workflow made: the node set together with
   * Tandem's {@code tandem.dev/job-id} annotation (the Binding carries both, in one write). That
   * workflow learned the node from its bind's answer, and a bind whose answer was lost is repeated
   * by the workflow itself, so a signal would only cost it a workflow task. Any other bind (another
   * scheduler, a user) is signalled, and so is every resync.
   */
  static boolean boundByTandem(PodView before, PodView after, Pod pod) {
    Map<String, String> a = pod.getMetadata().getAnnotations();
    return isBlank(before.k8sNode())
        && !isBlank(after.k8sNode())
        && before.exists() == after.exists()
        && Objects.equals(before.uid(), after.uid())
        && before.terminating() == after.terminating()
        && before.failed() == after.failed()
        && a != null
        && !isBlank(a.get(ScheduleAnnotations.JOB_ID));
  }

  /**
   * Whether two views of a pod make its scheduling workflow decide the same: it acts on the pod
   * being there (uid), its node, its deletion and its end (Failed or Succeeded), not on Pending
   * turning Running or Ready flapping, each of which would otherwise cost a workflow task per pod.
   */
  static boolean sameForScheduling(PodView a, PodView b) {
    return a.exists() == b.exists()
        && Objects.equals(a.uid(), b.uid())
        && Objects.equals(a.k8sNode(), b.k8sNode())
        && a.terminating() == b.terminating()
        && a.failed() == b.failed();
  }

  @Override
  protected void onDelete(Pod pod, boolean unknownFinalState) {
    send(pod, route(pod, true), PodView.absent(pod.getMetadata().getName()), null);
  }

  /**
   * @param known the pod's request if the caller already computed it, else null
   */
  private void send(Pod pod, Route route, PodView view, PodRequest known) {
    // A gang's workflow needs the member's request with every signal (also its last one, when it
    // is gone: which member left, and what it asked for); a single pod's only to start.
    boolean needed = route.start() || route.group() != null;
    PodRequest request = !needed ? null : known != null ? known : SchedulingPods.request(pod);
    String ns = pod.getMetadata().getNamespace();
    Instant seen = Instant.now();
    coalescer.submit(
        "sched:" + pod.getMetadata().getUid(),
        () -> {
          if (route.group() != null && route.start()) {
            signals.podGroupMember(ns, route.group(), new GroupMember(request, view));
            metrics.signal(Names.SIGNAL_MEMBER_OBSERVED, "sent");
          } else if (route.group() != null) {
            boolean ok =
                signals.workflow(
                    route.workflowId(),
                    Names.SIGNAL_MEMBER_OBSERVED,
                    new GroupMember(request, view));
            metrics.signal(Names.SIGNAL_MEMBER_OBSERVED, ok ? "sent" : "not-running");
          } else if (route.start()) {
            signals.podSchedule(request, view);
            metrics.signal(Names.SIGNAL_POD_OBSERVED, "sent");
          } else {
            boolean ok = signals.workflow(route.workflowId(), Names.SIGNAL_POD_OBSERVED, view);
            metrics.signal(Names.SIGNAL_POD_OBSERVED, ok ? "sent" : "not-running");
          }
          metrics.lag("scheduling-pod", Duration.between(seen, Instant.now()));
        });
  }

  /**
   * The workflow that owns placeholder jobs tagged {@code tag}: a tag with a dot is a gang's
   * ({@code <ns>.<group>.<incarnation>}), owned while any member pod exists; any other tag is a pod
   * uid, owned by that pod's workflow while the pod exists. Empty when no cached pod claims the
   * tag.
   */
  @Override
  public Optional<String> workflowIdForTag(String tag) {
    SharedIndexInformer<Pod> informer = informer();
    if (informer == null || tag == null) {
      return Optional.empty();
    }
    int dot = tag.indexOf('.');
    if (dot > 0) {
      // <ns>.<group>.<incarnation>: the group is owned while any member pod exists.
      int end = tag.indexOf('.', dot + 1);
      String key = end < 0 ? tag : tag.substring(0, end);
      if (informer.getIndexer().byIndex(BY_GROUP, key).isEmpty()) {
        return Optional.empty();
      }
      return Optional.of(Names.podGroupWorkflowId(key.substring(0, dot), key.substring(dot + 1)));
    }
    return informer.getIndexer().byIndex(BY_UID, tag).stream()
        .findFirst()
        .map(
            p ->
                Names.scheduleWorkflowId(
                    p.getMetadata().getNamespace(), p.getMetadata().getName(), tag));
  }

  @Override
  public boolean routesKnown() {
    return synced() && running();
  }

  /** A scan of the cache (only the scheduler's pods are cached): cheap next to a Slurm call. */
  @Override
  public boolean podsWaiting() {
    SharedIndexInformer<Pod> informer = informer();
    if (informer == null) {
      return false;
    }
    for (Pod p : informer.getStore().list()) {
      if (waiting(p)) {
        return true;
      }
    }
    return false;
  }

  /** No node yet and not going away: the pod waits for Slurm to place it. */
  static boolean waiting(Pod pod) {
    return (pod.getSpec() == null || isBlank(pod.getSpec().getNodeName()))
        && pod.getMetadata().getDeletionTimestamp() == null;
  }

  /** {@code <ns>.<group>} for a pod with annotation {@code tandem.dev/pod-group}. */
  static Optional<String> groupTag(Pod pod) {
    Map<String, String> a = pod.getMetadata().getAnnotations();
    String group = a == null ? null : a.get(ScheduleAnnotations.POD_GROUP);
    if (isBlank(group)) {
      return Optional.empty();
    }
    return Optional.of(Names.podGroupTag(pod.getMetadata().getNamespace(), group));
  }

  private static boolean isBlank(String s) {
    return s == null || s.isBlank();
  }
}
