package dev.tandem.bench;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The benchmark's own pods ({@code schedulerName: tandem-slurm}, labelled with the run id) and ONE
 * watch on them that timestamps what the benchmark measures: the first event showing {@code
 * spec.nodeName} (bound), and the first showing the pod going away (deletionTimestamp, a {@code
 * DisruptionTarget} condition, or the deletion itself). Pods marked {@link #deleteOnBind} are
 * deleted as soon as they are seen bound, from a small pool so the watch thread never blocks.
 *
 * <p>If the watch closes with an error it is opened again (at most {@link #MAX_REWATCH} times); a
 * new watch lists the current pods first, so a bind missed in between is seen late, never lost.
 */
final class BenchPods implements AutoCloseable {
  static final String LABEL = "tandem.dev/bench-run";
  static final String SCHEDULER = "tandem-slurm";
  static final String PARTITION_ANNOTATION = "tandem.dev/partition";
  static final String SLURM_NODE_ANNOTATION = "tandem.dev/slurm-node";
  static final String EXCLUSIVE_ANNOTATION = "tandem.dev/exclusive";
  private static final int MAX_REWATCH = 5;

  /** When a pod was seen going away, by both clocks (wall clock to compare with Slurm's). */
  record Gone(long nanos, Instant at) {}

  private final KubernetesClient k8s;
  private final String namespace;
  private final String runId;
  private final String partition;
  private final String scheduler;
  private final Map<String, Long> bound = new ConcurrentHashMap<>();
  private final Map<String, String> boundSlurmNode = new ConcurrentHashMap<>();
  private final Map<String, Gone> gone = new ConcurrentHashMap<>();
  private final Set<String> deleteOnBind = ConcurrentHashMap.newKeySet();
  private final Map<String, String> uids = new ConcurrentHashMap<>();
  private final ExecutorService deleter = Executors.newFixedThreadPool(4);
  private final AtomicInteger rewatches = new AtomicInteger();
  private volatile boolean closing;
  private volatile Watch watch;

  BenchPods(KubernetesClient k8s, String namespace, String runId, String partition) {
    this(k8s, namespace, runId, partition, SCHEDULER);
  }

  /**
   * @param scheduler the pods' {@code schedulerName}: Tandem's, or the bench's {@link
   *     FloorScheduler}'s
   */
  BenchPods(
      KubernetesClient k8s, String namespace, String runId, String partition, String scheduler) {
    this.k8s = k8s;
    this.namespace = namespace;
    this.runId = runId;
    this.partition = partition;
    this.scheduler = scheduler;
    this.watch = openWatch();
  }

  private Watch openWatch() {
    return k8s.pods()
        .inNamespace(namespace)
        .withLabel(LABEL, runId)
        .watch(
            new Watcher<>() {
              @Override
              public void eventReceived(Action action, Pod pod) {
                seen(action, pod);
              }

              @Override
              public void onClose(WatcherException cause) {
                if (!closing && rewatches.incrementAndGet() <= MAX_REWATCH) {
                  watch = openWatch();
                }
              }
            });
  }

  private void seen(Watcher.Action action, Pod pod) {
    long now = System.nanoTime();
    String name = pod.getMetadata().getName();
    if (pod.getSpec() != null && pod.getSpec().getNodeName() != null) {
      if (bound.putIfAbsent(name, now) == null && deleteOnBind.contains(name)) {
        deleter.execute(() -> delete(name));
      }
      Map<String, String> a = pod.getMetadata().getAnnotations();
      if (a != null && a.get(SLURM_NODE_ANNOTATION) != null) {
        boundSlurmNode.putIfAbsent(name, a.get(SLURM_NODE_ANNOTATION));
      }
    }
    if (action == Watcher.Action.DELETED
        || pod.getMetadata().getDeletionTimestamp() != null
        || disruptionTarget(pod)) {
      gone.putIfAbsent(name, new Gone(now, Instant.now()));
    }
  }

  private static boolean disruptionTarget(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
      return false;
    }
    for (PodCondition c : pod.getStatus().getConditions()) {
      if ("DisruptionTarget".equals(c.getType()) && "True".equals(c.getStatus())) {
        return true;
      }
    }
    return false;
  }

  /**
   * Creates pod {@code name} (100m cpu, 64Mi, grace 0: Slurm's KillWait on the local Slurm is 5 s
   * and the grace must stay below it minus the margin) and returns its uid.
   *
   * @param deleteWhenBound delete it as soon as the watch sees it bound
   * @param wholeNode ask Slurm for a whole node ({@code tandem.dev/exclusive: exclusive}), so pods
   *     alive together land on different nodes
   */
  String create(String name, boolean deleteWhenBound, boolean wholeNode) {
    if (deleteWhenBound) {
      deleteOnBind.add(name);
    }
    Map<String, String> annotations = new java.util.HashMap<>();
    annotations.put(PARTITION_ANNOTATION, partition);
    if (wholeNode) {
      annotations.put(EXCLUSIVE_ANNOTATION, "exclusive");
    }
    Pod p =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(namespace)
            .withLabels(Map.of(LABEL, runId))
            .withAnnotations(annotations)
            .endMetadata()
            .withNewSpec()
            .withSchedulerName(scheduler)
            .withTerminationGracePeriodSeconds(0L)
            .addNewContainer()
            .withName("work")
            .withImage("busybox:bench")
            .withCommand(List.of("sleep", "3600"))
            .withNewResources()
            .withRequests(Map.of("cpu", new Quantity("100m"), "memory", new Quantity("64Mi")))
            .endResources()
            .endContainer()
            .endSpec()
            .build();
    String uid = k8s.pods().inNamespace(namespace).resource(p).create().getMetadata().getUid();
    uids.put(name, uid);
    return uid;
  }

  /** Name → uid of every pod this run created. */
  Map<String, String> uids() {
    return Map.copyOf(uids);
  }

  void delete(String name) {
    try {
      k8s.pods().inNamespace(namespace).withName(name).withGracePeriod(0).delete();
    } catch (RuntimeException e) {
      // the clean-up at the end deletes whatever is left
    }
  }

  Long boundAt(String name) {
    return bound.get(name);
  }

  int boundCount() {
    return bound.size();
  }

  /** The Slurm node the pod was bound for (Tandem's annotation), or null if not seen. */
  String slurmNode(String name) {
    return boundSlurmNode.get(name);
  }

  Gone goneAt(String name) {
    return gone.get(name);
  }

  /**
   * Deletes every pod of this run and waits (at most {@code limit}) until none is listed; returns
   * how many were still listed at the end.
   */
  int deleteAll(Duration limit) throws InterruptedException {
    k8s.pods().inNamespace(namespace).withLabel(LABEL, runId).withGracePeriod(0).delete();
    long end = System.nanoTime() + limit.toNanos();
    int left;
    do {
      left = k8s.pods().inNamespace(namespace).withLabel(LABEL, runId).list().getItems().size();
      if (left > 0) {
        Thread.sleep(200);
      }
    } while (left > 0 && System.nanoTime() < end);
    return left;
  }

  @Override
  public void close() {
    closing = true;
    watch.close();
    deleter.shutdown();
    try {
      deleter.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
