package dev.tandem.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmNode;
import dev.tandem.slurm.bench.Latencies;
import dev.tandem.watchers.K8sNodeWatcher;
import dev.tandem.watchers.SlurmMirror;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * How fast the watchers carry a change across, measured end to end on a running stack (real
 * slurmrestd, the Kubernetes API, the worker with its watchers and node workflows):
 *
 * <ol>
 *   <li><b>cordon → Slurm DRAIN</b>: the clock starts before the cordon patch is sent (with a
 *       unique {@code tandem.dev/cordon-reason}) and stops when slurmrestd shows the pod's Slurm
 *       node with the DRAIN flag and that reason. Path: node informer → coalescer → signal → node
 *       workflow → drain activity → scontrol/REST. The node is uncordoned and seen back in service
 *       (undrained and responding) before the next trial (not timed).
 *   <li><b>Slurm drain → pod annotation</b>: the clock starts before an administrator-style drain
 *       (a reason without the {@code tandem:} prefix) is sent to Slurm and stops when the pod
 *       carries {@code tandem.dev/slurm-reason} with that reason. Path: the Slurm poller's next
 *       incremental poll → mirror patch. Its floor is the poll interval, so the target is poll
 *       interval + 0.5 s. The node is resumed and the annotation seen cleared before the next
 *       trial.
 * </ol>
 *
 * <p>Both sides are observed by polling every 10 ms, which adds at most that much. A trial that
 * does not finish within 15 s counts as failed and is reported, never as a sample.
 */
public final class WatchersBench {
  private static final Duration TRIAL_LIMIT = Duration.ofSeconds(15);
  private static final long EVERY_MS = 10;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Samples in milliseconds, and trials that timed out. */
  public record Result(List<Double> cordonToDrainMs, List<Double> slurmToPodMs, int failed) {}

  private final KubernetesClient k8s;
  private final SlurmClient slurm;
  private final String namespace;
  private final String pod;
  private final Duration slurmPoll;
  private final PrintWriter out;
  private final java.util.Random random = new java.util.Random();

  /**
   * @param pod a ready slurmd pod of a NodeSet; its Slurm node has the same name
   * @param slurmPoll the Slurm watcher's poll interval: each Slurm-side trial starts after a random
   *     pause up to this long, so trials land at every phase of the poll cycle as real drains do
   *     (back-to-back trials would all start just after a poll and measure the worst case only)
   */
  public WatchersBench(
      KubernetesClient k8s,
      SlurmClient slurm,
      String namespace,
      String pod,
      Duration slurmPoll,
      PrintWriter out) {
    this.k8s = k8s;
    this.slurm = slurm;
    this.namespace = namespace;
    this.pod = pod;
    this.slurmPoll = slurmPoll;
    this.out = out;
  }

  public Result run(int trials) throws InterruptedException {
    String k8sNode = podObject().getSpec().getNodeName();
    out.printf(
        "pod %s/%s on Kubernetes node %s, %d trials each%n", namespace, pod, k8sNode, trials);
    out.flush();
    List<Double> cordon = new ArrayList<>();
    List<Double> mirror = new ArrayList<>();
    int failed = 0;
    for (int i = 0; i < trials; i++) {
      Thread.sleep(random.nextLong(200)); // not in lockstep with the node workflows' timers
      String reason = "bench cordon " + i + " " + System.nanoTime();
      long t0 = System.nanoTime();
      cordon(k8sNode, reason);
      if (await(() -> drainedWith("tandem:k8s-cordon: " + reason))) {
        cordon.add((System.nanoTime() - t0) / 1e6);
      } else {
        failed++;
      }
      uncordon(k8sNode);
      // Back in service: undrained, and Slurm's re-ping after the undrain answered (the node
      // workflow's undrain returns only then; a cordon before that would queue behind it).
      if (!await(() -> inService())) {
        throw new IllegalStateException(pod + " still drained after uncordon; stopping the bench");
      }
    }
    out.println(Latencies.summary("cordon -> Slurm DRAIN", cordon));
    out.flush();
    for (int i = 0; i < trials; i++) {
      Thread.sleep(random.nextLong(Math.max(1, slurmPoll.toMillis())));
      String reason = "bench admin drain " + i + " " + System.nanoTime();
      long t0 = System.nanoTime();
      slurm.drain(pod, reason);
      if (await(() -> reason.equals(annotation(SlurmMirror.REASON)))) {
        mirror.add((System.nanoTime() - t0) / 1e6);
      } else {
        failed++;
      }
      slurm.resume(pod);
      if (!await(() -> annotation(SlurmMirror.REASON) == null)) {
        throw new IllegalStateException(pod + " annotation not cleared; stopping the bench");
      }
    }
    out.println(Latencies.summary("Slurm drain -> pod", mirror));
    if (failed > 0) {
      out.printf("%d trials did not finish within %ds%n", failed, TRIAL_LIMIT.toSeconds());
    }
    out.flush();
    return new Result(cordon, mirror, failed);
  }

  private void cordon(String node, String reason) {
    patchNode(
        node,
        Map.of(
            "metadata", Map.of("annotations", Map.of(K8sNodeWatcher.CORDON_REASON, reason)),
            "spec", Map.of("unschedulable", true)));
  }

  private void uncordon(String node) {
    Map<String, Object> noReason = new HashMap<>();
    noReason.put(K8sNodeWatcher.CORDON_REASON, null);
    patchNode(
        node,
        Map.of(
            "metadata", Map.of("annotations", noReason), "spec", Map.of("unschedulable", false)));
  }

  private void patchNode(String node, Map<String, Object> patch) {
    try {
      String json = JSON.writeValueAsString(patch);
      k8s.nodes().withName(node).patch(PatchContext.of(PatchType.JSON_MERGE), json);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private boolean drainedWith(String reason) {
    SlurmNode n = slurm.getNode(pod);
    return n.flags().contains("DRAIN") && reason.equals(n.reason());
  }

  private boolean inService() {
    SlurmNode n = slurm.getNode(pod);
    return !n.flags().contains("DRAIN") && !n.notResponding();
  }

  private Pod podObject() {
    Pod p = k8s.pods().inNamespace(namespace).withName(pod).get();
    if (p == null || p.getSpec().getNodeName() == null) {
      throw new IllegalStateException("pod " + namespace + "/" + pod + " is not scheduled");
    }
    return p;
  }

  private String annotation(String key) {
    Map<String, String> a = podObject().getMetadata().getAnnotations();
    return a == null ? null : a.get(key);
  }

  private static boolean await(BooleanSupplier done) throws InterruptedException {
    long end = System.nanoTime() + TRIAL_LIMIT.toNanos();
    while (System.nanoTime() < end) {
      if (done.getAsBoolean()) {
        return true;
      }
      Thread.sleep(EVERY_MS);
    }
    return false;
  }
}
