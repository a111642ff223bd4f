package dev.tandem.e2e;

import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmNode;
import dev.tandem.slurm.testing.Await;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * What a scenario can see without a worker: Slurm (through slurmrestd), the pods and the NodeSet's
 * status in Kubernetes. Waits poll these, so they go on while the worker is dead.
 */
final class ClusterView {
  static final Duration EVERY = Duration.ofMillis(250);

  private final E2EStack e2e;
  private final String nodeSet;

  ClusterView(E2EStack e2e, String nodeSet) {
    this.e2e = e2e;
    this.nodeSet = nodeSet;
  }

  void await(String what, Duration limit, BooleanSupplier done) {
    Await.until(what, limit, EVERY, done::getAsBoolean, b -> b);
  }

  // ---- Slurm ----

  Optional<SlurmNode> node(String name) {
    return e2e.slurmNode(name);
  }

  /** Idle or allocated, no flag at all, no reason: in service and untouched. */
  boolean serving(String name) {
    return node(name)
        .filter(
            n ->
                !n.down()
                    && !n.future()
                    && n.flags().isEmpty()
                    && (n.reason() == null || n.reason().isBlank()))
        .isPresent();
  }

  boolean servingAll(String... names) {
    return java.util.Arrays.stream(names).allMatch(this::serving);
  }

  /** Not down, no flag: in service, busy or not (a reason may linger from an earlier drain). */
  boolean inServiceAll(String... names) {
    for (String name : names) {
      Optional<SlurmNode> n = node(name);
      if (n.isEmpty() || n.get().down() || n.get().future() || !n.get().flags().isEmpty()) {
        return false;
      }
    }
    return true;
  }

  boolean drainedWith(String name, String reasonPrefix) {
    return node(name)
        .filter(n -> n.drainFlag() && n.reason() != null && n.reason().startsWith(reasonPrefix))
        .isPresent();
  }

  boolean listed(String name) {
    return node(name).isPresent();
  }

  boolean jobRunning(long id) {
    SlurmJob j = e2e.slurm.getJob(id);
    return j != null && j.running();
  }

  // ---- pods ----

  Optional<Pod> pod(String name) {
    return e2e.pod(name);
  }

  List<Pod> pods() {
    return e2e.k8s
        .pods()
        .inNamespace("default")
        .withLabel("tandem.dev/nodeset", nodeSet)
        .list()
        .getItems();
  }

  static String revision(Pod p) {
    return p.getMetadata().getLabels() == null
        ? null
        : p.getMetadata().getLabels().get("tandem.dev/revision");
  }

  static boolean running(Pod p) {
    return p.getMetadata().getDeletionTimestamp() == null
        && p.getStatus() != null
        && "Running".equals(p.getStatus().getPhase());
  }

  /**
   * Not touched by a rollout: its pod is at {@code rev}, not being deleted and was never seen
   * deleted ({@code deleted}), and Slurm shows no drain.
   */
  boolean untouched(String name, String rev, java.util.Set<String> deleted) {
    boolean podOld =
        pod(name)
            .map(p -> rev.equals(revision(p)) && p.getMetadata().getDeletionTimestamp() == null)
            .orElse(false);
    boolean noDrain = node(name).map(n -> !n.drainFlag()).orElse(false);
    return podOld && noDrain && !deleted.contains(name);
  }

  /**
   * Watches {@code names} for {@code hold}: each must stay {@link #untouched} (pods seen deleted
   * come from {@code deletions}); fails at once, saying {@code why}, when one is taken.
   */
  void assertUntouchedFor(
      Duration hold,
      List<String> names,
      String rev,
      java.util.function.Supplier<Map<String, Instant>> deletions,
      String why)
      throws InterruptedException {
    long end = System.nanoTime() + hold.toNanos();
    while (System.nanoTime() < end) {
      for (String name : names) {
        if (!untouched(name, rev, deletions.get().keySet())) {
          throw new AssertionError(
              "the rollout took "
                  + name
                  + " "
                  + why
                  + ": "
                  + node(name)
                  + ", pod at "
                  + pod(name).map(ClusterView::revision));
        }
      }
      Thread.sleep(EVERY.toMillis());
    }
  }

  /** The pod runs at {@code rev} and its own slurmd has registered (started after the pod). */
  boolean replacedAndRegistered(String name, String rev) {
    Optional<Pod> p = pod(name);
    Optional<SlurmNode> n = node(name);
    if (p.isEmpty() || n.isEmpty() || !running(p.get()) || !rev.equals(revision(p.get()))) {
      return false;
    }
    Instant created = Instant.parse(p.get().getMetadata().getCreationTimestamp());
    Instant started = n.get().slurmdStartTime();
    return started != null
        && !started.isBefore(created.minusSeconds(2))
        && !n.get().notResponding();
  }

  // ---- the NodeSet's status in Kubernetes ----

  /** The NodeSet's {@code status}, or an empty map. */
  Map<?, ?> status() {
    var r = e2e.nodeSet(nodeSet);
    Object st = r == null ? null : r.getAdditionalProperties().get("status");
    return st instanceof Map<?, ?> m ? m : Map.of();
  }

  int statusInt(String field) {
    Object v = status().get(field);
    return v instanceof Number n ? n.intValue() : -1;
  }

  String statusText(String field) {
    Object v = status().get(field);
    return v == null ? null : v.toString();
  }

  /** The status of condition {@code type} ({@code True}, {@code False}, ...), or null. */
  String condition(String type) {
    Object cs = status().get("conditions");
    if (cs instanceof List<?> l) {
      for (Object o : l) {
        if (o instanceof Map<?, ?> c && type.equals(c.get("type"))) {
          return String.valueOf(c.get("status"));
        }
      }
    }
    return null;
  }
}
