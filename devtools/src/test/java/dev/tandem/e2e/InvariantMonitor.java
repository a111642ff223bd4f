package dev.tandem.e2e;

import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Watches a scenario from the outside (Slurm through slurmrestd, pods through the Kubernetes API)
 * and records every breach of the invariants Tandem promises, whatever happens to the worker:
 *
 * <ol>
 *   <li><b>No pod is deleted while a job runs on it.</b> The scenario declares its jobs ({@link
 *       #jobRunning}) and when it asks for their end ({@link #jobCancelRequested}); a pod that gets
 *       a deletion timestamp (or disappears) while one of its jobs has not been cancelled by the
 *       scenario is a breach. At the end every declared job must have ended only by the scenario's
 *       cancel and never been requeued ({@link #checkJobs}).
 *   <li><b>No administrator drain is lifted.</b> Between {@link #adminDrained} and {@link
 *       #adminLifted} the node must show DRAIN with the administrator's reason on every poll that
 *       started after the drain, across a replacement of its pod too ({@link AdminDrainWatch}).
 *   <li><b>maxUnavailable is never exceeded.</b> Inside a rolling-update window ({@link
 *       #rollingUpdate}), nodes that do not serve (pod not running, Slurm node absent, down, not
 *       responding or drained for any reason, an administrator's drain included) are counted on
 *       every poll; a count above the budget on two polls in a row is a breach (one poll can see a
 *       pod and Slurm a moment apart). Slurm 22.05 flags a node NOT_RESPONDING for about a second
 *       after every UNDRAIN or RESUME while it pings the slurmd again (docs/concepts.md): a node
 *       whose only sign is NOT_RESPONDING within {@link OutOfService#PING_GRACE} of having been out
 *       for another reason is coming back, not going out, and counts as serving. A slurmd that
 *       stays silent longer counts.
 * </ol>
 *
 * The remaining invariants (every lifecycle finished, no Tandem drain without a holder) are end
 * states, checked by the scenario through Temporal once it is done.
 */
final class InvariantMonitor implements AutoCloseable {
  private final SlurmClient slurm;
  private final KubernetesClient k8s;
  private final String namespace;
  private final String nodeSet;
  private final Duration poll;

  private final List<String> violations = Collections.synchronizedList(new ArrayList<>());
  private final Map<Long, String> jobs = new ConcurrentHashMap<>();
  private final Set<Long> cancelRequested = ConcurrentHashMap.newKeySet();
  private final AdminDrainWatch adminDrains = new AdminDrainWatch();
  private final Map<String, Instant> podDeletions = new ConcurrentHashMap<>();
  private final OutOfService outOfService = new OutOfService(OutOfService.PING_GRACE);
  private volatile Map<String, SlurmNode> latest = Map.of();
  private volatile Set<String> rollingPods;
  private volatile int maxUnavailable;
  private volatile int overBudgetPolls;
  private volatile int maxUnavailableSeen;
  private volatile long polls;
  private volatile long failedPolls;
  private volatile boolean closed;
  private Thread thread;
  private SharedIndexInformer<Pod> informer;

  InvariantMonitor(
      SlurmClient slurm, KubernetesClient k8s, String namespace, String nodeSet, Duration poll) {
    this.slurm = slurm;
    this.k8s = k8s;
    this.namespace = namespace;
    this.nodeSet = nodeSet;
    this.poll = poll;
  }

  void start() {
    informer =
        k8s.pods()
            .inNamespace(namespace)
            .withLabel("tandem.dev/nodeset", nodeSet)
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(Pod p) {
                    if (p.getMetadata().getDeletionTimestamp() != null) {
                      podGoing(p.getMetadata().getName());
                    }
                  }

                  @Override
                  public void onUpdate(Pod old, Pod p) {
                    if (old.getMetadata().getDeletionTimestamp() == null
                        && p.getMetadata().getDeletionTimestamp() != null) {
                      podGoing(p.getMetadata().getName());
                    }
                  }

                  @Override
                  public void onDelete(Pod p, boolean unknownFinalState) {
                    podGoing(p.getMetadata().getName());
                  }
                });
    thread = new Thread(this::loop, "invariant-monitor");
    thread.setDaemon(true);
    thread.start();
  }

  // ---- what the scenario declares ----

  /** The scenario's job {@code id} runs on {@code node} (seen RUNNING there). */
  void jobRunning(long id, String node) {
    jobs.put(id, node);
  }

  /** The scenario is about to cancel job {@code id}: from now on it may end. */
  void jobCancelRequested(long id) {
    cancelRequested.add(id);
  }

  /** The administrator has drained {@code node} (see {@link AdminDrainWatch}). */
  void adminDrained(String node, String reason) {
    adminDrains.drained(node, reason);
  }

  void adminLifted(String node) {
    adminDrains.lifted(node);
  }

  /** A rolling update of these pods begins, at most {@code max} of them out of service. */
  void rollingUpdate(Set<String> pods, int max) {
    maxUnavailable = max;
    overBudgetPolls = 0;
    rollingPods = Set.copyOf(pods);
  }

  void rollingUpdateDone() {
    rollingPods = null;
  }

  // ---- what it found ----

  List<String> violations() {
    synchronized (violations) {
      return List.copyOf(violations);
    }
  }

  int maxUnavailableSeen() {
    return maxUnavailableSeen;
  }

  long polls() {
    return polls;
  }

  long failedPolls() {
    return failedPolls;
  }

  Map<String, Instant> podDeletions() {
    return Map.copyOf(podDeletions);
  }

  /** Slurm's nodes as the latest poll read them (empty before the first). */
  Map<String, SlurmNode> latestNodes() {
    return latest;
  }

  /**
   * Every declared job ended only because the scenario cancelled it, on the node it started on,
   * without a requeue (a killed slurmd would fail or requeue it). Reads Slurm (finished jobs stay
   * listed for MinJobAge, 300 s on the local Slurm).
   */
  void checkJobs() {
    Map<Long, SlurmJob> byId = new HashMap<>();
    for (SlurmJob j : slurm.listJobs(null).items()) {
      byId.put(j.id(), j);
    }
    for (Map.Entry<Long, String> e : jobs.entrySet()) {
      SlurmJob j = byId.get(e.getKey());
      String what = "job " + e.getKey() + " on " + e.getValue();
      if (j == null) {
        violation(what + " is no longer listed by Slurm (cannot tell how it ended)");
      } else if (j.restartCount() > 0) {
        violation(what + " was requeued " + j.restartCount() + " time(s): " + j.stateReason());
      } else if (!cancelRequested.contains(e.getKey()) && !j.running()) {
        violation(what + " ended without the scenario cancelling it: " + j.state());
      } else if (cancelRequested.contains(e.getKey()) && !"CANCELLED".equals(j.state())) {
        violation(what + " ended as " + j.state() + ", not CANCELLED by the scenario");
      } else if (!j.nodeList().contains(e.getValue())) {
        violation(what + " now runs on " + j.nodes());
      }
    }
  }

  // ---- the watch ----

  private void podGoing(String pod) {
    podDeletions.putIfAbsent(pod, Instant.now());
    for (Map.Entry<Long, String> e : jobs.entrySet()) {
      if (e.getValue().equals(pod) && !cancelRequested.contains(e.getKey())) {
        violation("pod " + pod + " deleted while job " + e.getKey() + " ran on it");
      }
    }
  }

  private void loop() {
    while (!closed) {
      try {
        check();
        polls++;
      } catch (RuntimeException e) {
        failedPolls++; // slurmrestd may be down on purpose (fault tests): nothing to judge
      }
      try {
        Thread.sleep(poll.toMillis());
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private void check() {
    long pollStart = System.nanoTime();
    Map<String, SlurmNode> nodes = new LinkedHashMap<>();
    for (SlurmNode n : slurm.listNodes(null).items()) {
      nodes.put(n.name(), n);
    }
    latest = Collections.unmodifiableMap(nodes);
    for (String breach : adminDrains.breaches(nodes, pollStart)) {
      violation(breach);
    }
    Set<String> pods = rollingPods;
    if (pods != null) {
      Set<String> out = new TreeSet<>();
      for (String p : pods) {
        if (!serving(p, nodes.get(p))) {
          out.add(p);
        }
      }
      maxUnavailableSeen = Math.max(maxUnavailableSeen, out.size());
      if (out.size() > maxUnavailable) {
        overBudgetPolls++;
        if (overBudgetPolls == 2) {
          violation("maxUnavailable " + maxUnavailable + " exceeded: " + out + " out of service");
        }
      } else {
        overBudgetPolls = 0;
      }
    }
  }

  private boolean serving(String pod, SlurmNode n) {
    Pod p = informer == null ? null : informer.getStore().getByKey(namespace + "/" + pod);
    boolean podRunning =
        p != null
            && p.getMetadata().getDeletionTimestamp() == null
            && p.getStatus() != null
            && "Running".equals(p.getStatus().getPhase());
    return !outOfService.out(pod, podRunning, n, Instant.now());
  }

  private void violation(String what) {
    String line = Instant.now() + " " + what;
    synchronized (violations) {
      if (violations.stream().noneMatch(v -> v.endsWith(what))) {
        violations.add(line);
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    if (thread != null) {
      thread.interrupt();
    }
    if (informer != null) {
      informer.close();
    }
  }
}
