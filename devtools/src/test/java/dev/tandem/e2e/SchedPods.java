package dev.tandem.e2e;

import dev.tandem.slurm.PlaceholderJob;
import dev.tandem.slurm.testing.Await;
import dev.tandem.workflows.Names;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Pods scheduled through Slurm, as a user writes them ({@code schedulerName: tandem-slurm}), and
 * what a user looks at afterwards: the pod's node, conditions, annotations and events, and Slurm's
 * jobs carrying the pod's uid tag.
 */
final class SchedPods {
  static final Duration LIMIT = Duration.ofSeconds(90);
  static final Duration EVERY = Duration.ofMillis(100);

  private final E2EStack e2e;
  private final KubernetesClient k8s;

  SchedPods(E2EStack e2e) {
    this.e2e = e2e;
    this.k8s = e2e.k8s;
  }

  /** A pod of one CPU and 256Mi, grace 2 s, with {@code annotations}. */
  Pod create(String name, Map<String, String> annotations) {
    return create(name, annotations, Map.of("cpu", "1", "memory", "256Mi"));
  }

  Pod create(String name, Map<String, String> annotations, Map<String, String> requests) {
    return create(name, annotations, requests, null);
  }

  /** A pod of one CPU and 256Mi, grace 2 s, of PriorityClass {@code priorityClass}. */
  Pod createWithPriorityClass(String name, String priorityClass) {
    return create(name, Map.of(), Map.of("cpu", "1", "memory", "256Mi"), priorityClass);
  }

  private Pod create(
      String name,
      Map<String, String> annotations,
      Map<String, String> requests,
      String priorityClass) {
    Map<String, Quantity> req = new HashMap<>();
    requests.forEach((k, v) -> req.put(k, new Quantity(v)));
    Pod p =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace("default")
            .withAnnotations(annotations)
            .endMetadata()
            .withNewSpec()
            .withSchedulerName(Names.SCHEDULER_NAME)
            .withPriorityClassName(priorityClass)
            .withTerminationGracePeriodSeconds(2L)
            .addNewContainer()
            .withName("main")
            .withImage("trainer:v1")
            .withNewResources()
            .withRequests(req)
            .withLimits(req)
            .endResources()
            .endContainer()
            .endSpec()
            .build();
    return k8s.pods().inNamespace("default").resource(p).create();
  }

  Optional<Pod> get(String name) {
    return Optional.ofNullable(k8s.pods().inNamespace("default").withName(name).get());
  }

  /** Waits until the pod is bound to a node; returns it. */
  Pod awaitBound(String name) {
    return Await.until(
        name + " bound",
        LIMIT,
        EVERY,
        () -> get(name).orElse(null),
        p -> p != null && p.getSpec().getNodeName() != null);
  }

  /** Waits until the pod is gone (deleted, or evicted and stopped by the kubelet). */
  void awaitGone(String name) {
    Await.until(name + " gone", LIMIT, EVERY, () -> get(name).isEmpty(), b -> b);
  }

  /** The pod's condition of {@code type}, if set. */
  static Optional<PodCondition> condition(Pod p, String type) {
    if (p == null || p.getStatus() == null || p.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return p.getStatus().getConditions().stream().filter(c -> type.equals(c.getType())).findFirst();
  }

  /**
   * Watches pod {@code name} for condition {@code type}={@code status} from now on. A watch, not
   * polling: a pod evicted right after the condition is written (no process to stop) can be gone
   * before the next poll, and the watch's last event still carries that version.
   */
  ConditionWatch watchCondition(String name, String type, String status) {
    java.util.concurrent.CompletableFuture<PodCondition> seen =
        new java.util.concurrent.CompletableFuture<>();
    io.fabric8.kubernetes.client.Watch w =
        k8s.pods()
            .inNamespace("default")
            .withName(name)
            .watch(
                new io.fabric8.kubernetes.client.Watcher<Pod>() {
                  @Override
                  public void eventReceived(Action action, Pod p) {
                    condition(p, type)
                        .filter(c -> status.equals(c.getStatus()))
                        .ifPresent(seen::complete);
                  }

                  @Override
                  public void onClose(io.fabric8.kubernetes.client.WatcherException cause) {}
                });
    return new ConditionWatch(name + " " + type + "=" + status, w, seen);
  }

  /** A running {@link #watchCondition}; {@link #await} waits (bounded) for the condition. */
  record ConditionWatch(
      String what,
      io.fabric8.kubernetes.client.Watch watch,
      java.util.concurrent.CompletableFuture<PodCondition> seen)
      implements AutoCloseable {
    PodCondition await() throws Exception {
      try {
        return seen.get(LIMIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.TimeoutException e) {
        throw new AssertionError("timed out after " + LIMIT + " waiting for " + what);
      }
    }

    @Override
    public void close() {
      watch.close();
    }
  }

  /** Waits until the pod shows condition {@code type} with {@code status}; returns it. */
  PodCondition awaitCondition(String name, String type, String status) {
    return Await.until(
        name + " " + type + "=" + status,
        LIMIT,
        EVERY,
        () -> get(name).flatMap(p -> condition(p, type)).orElse(null),
        c -> c != null && status.equals(c.getStatus()));
  }

  /** Events about the pod (involvedObject name). */
  List<Event> events(String name) {
    return k8s.v1().events().inNamespace("default").list().getItems().stream()
        .filter(e -> e.getInvolvedObject() != null && name.equals(e.getInvolvedObject().getName()))
        .toList();
  }

  /** Waits for an event about the pod with {@code reason}; returns it. */
  Event awaitEvent(String name, String reason) {
    return Await.until(
            name + " event " + reason,
            LIMIT,
            EVERY,
            () -> events(name).stream().filter(e -> reason.equals(e.getReason())).findFirst(),
            Optional::isPresent)
        .orElseThrow();
  }

  /** Every job Slurm lists with the tag (pod uid or gang tag), any state. */
  List<PlaceholderJob> jobs(String tag) {
    return e2e.slurm.findJobsByTag(tag);
  }

  /** Every job of the gang {@code <ns>.<group>} (any incarnation), any state. */
  List<PlaceholderJob> gangJobs(String namespace, String group) {
    String prefix = Names.podGroupTag(namespace, group) + ".";
    return e2e.slurm.listPlaceholderJobs(null).items().stream()
        .filter(j -> j.podUid().startsWith(prefix))
        .toList();
  }

  /** Jobs of {@code all} that Slurm has not ended. */
  static List<PlaceholderJob> live(List<PlaceholderJob> all) {
    return all.stream()
        .filter(
            j ->
                j.phase() != PlaceholderJob.Phase.ENDED
                    && j.phase() != PlaceholderJob.Phase.PREEMPTED)
        .toList();
  }

  /** Jobs with the tag that Slurm has not ended. */
  List<PlaceholderJob> liveJobs(String tag) {
    return jobs(tag).stream()
        .filter(
            j ->
                j.phase() != PlaceholderJob.Phase.ENDED
                    && j.phase() != PlaceholderJob.Phase.PREEMPTED)
        .toList();
  }

  static String uid(Pod p) {
    return p.getMetadata().getUid();
  }

  static String annotation(Pod p, String key) {
    Map<String, String> a = p.getMetadata().getAnnotations();
    return a == null ? null : a.get(key);
  }

  /** The Kubernetes node of the slurmd pod of Slurm node {@code slurmNode}. */
  String k8sNodeOfSlurmNode(String slurmNode) {
    return e2e.pod(slurmNode).orElseThrow().getSpec().getNodeName();
  }

  /**
   * Deletes every pod scheduled through Slurm and waits until they are gone: a failed scenario must
   * not leave placeholders that keep the NodeSet's nodes busy for the next one.
   */
  void deleteAll() {
    k8s.pods()
        .inNamespace("default")
        .withField("spec.schedulerName", Names.SCHEDULER_NAME)
        .delete();
    Await.until(
        "pods through Slurm gone",
        LIMIT,
        EVERY,
        () ->
            k8s.pods()
                .inNamespace("default")
                .withField("spec.schedulerName", Names.SCHEDULER_NAME)
                .list()
                .getItems(),
        List::isEmpty);
  }

  void delete(String name) {
    k8s.pods().inNamespace("default").withName(name).delete();
  }

  /** {@code kubectl delete --grace-period=0 --force}: the pod is removed at once. */
  void forceDelete(String name) {
    k8s.pods().inNamespace("default").withName(name).withGracePeriod(0).delete();
  }
}
