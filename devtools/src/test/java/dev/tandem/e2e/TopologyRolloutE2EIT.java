package dev.tandem.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.testing.Await;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeSetSnapshot;
import dev.tandem.workflows.model.NodeSummary;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A rolling update by topology domain through the whole stack (real Slurm, local API and kubelet,
 * the worker as its own process): the three local Kubernetes nodes are labelled into two blocks
 * (local-1 and local-2 block a, local-3 block b), a NodeSet of six rolls a new image with {@code
 * topologyKey} and {@code maxUnavailable: 2}, and a {@link DomainSampler} asserts that nodes of two
 * blocks are never out of service at once, at most two of a block are, the idle block goes first,
 * and the update completes.
 */
class TopologyRolloutE2EIT {
  private static final Duration LIMIT = Duration.ofSeconds(120);
  private static final Duration EVERY = Duration.ofMillis(250);
  private static final String KEY = "topology.tandem.dev/block";
  private static final String SET = "e2e";
  @AutoClose private static E2EStack e2e;

  @BeforeAll
  static void start() throws Exception {
    e2e = E2EStack.start(Map.of());
  }

  private static String nodeSet(String image) {
    return "apiVersion: tandem.dev/v1alpha1\nkind: NodeSet\nmetadata:\n  name: "
        + SET
        + "\n  namespace: default\nspec:\n  replicas: 6\n  template:\n    spec:\n"
        + "      containers:\n      - name: slurmd\n        image: "
        + image
        + "\n  updateStrategy:\n    type: RollingUpdate\n    rollingUpdate:\n"
        + "      maxUnavailable: 2\n      topologyKey: "
        + KEY
        + "\n";
  }

  private static void label(String node, String block) {
    e2e.k8s
        .nodes()
        .withName(node)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"metadata\":{\"labels\":{\"" + KEY + "\":\"" + block + "\"}}}");
  }

  private static boolean allAt(String rev) {
    NodeSetSnapshot s = e2e.nodeSetStatus(SET);
    return s.nodes().size() == 6
        && s.nodes().stream()
            .allMatch(n -> n.phase() == NodePhase.READY && rev.equals(n.revision()));
  }

  @Test
  void rollsOneBlockAtATimeIdleBlockFirst() throws Exception {
    label("local-1", "a");
    label("local-2", "a");
    label("local-3", "b");
    e2e.apply(nodeSet("slurmd:v1"));
    Await.until(
        "6 nodes ready",
        LIMIT,
        EVERY,
        () -> e2e.nodeSetStatus(SET).nodes(),
        ns -> ns.size() == 6 && ns.stream().allMatch(n -> n.phase() == NodePhase.READY));
    String rev1 = e2e.nodeSetStatus(SET).status().updateRevision();

    // Each pod's block, from the node it runs on; the pods spread over the three nodes.
    Map<String, String> domainOf = new TreeMap<>();
    for (int i = 0; i < 6; i++) {
      Pod p = e2e.pod(SET + "-" + i).orElseThrow();
      String block = p.getSpec().getNodeName().equals("local-3") ? "b" : "a";
      domainOf.put(SET + "-" + i, block);
    }
    assertTrue(domainOf.containsValue("a") && domainOf.containsValue("b"), domainOf.toString());
    String busy =
        domainOf.entrySet().stream()
            .filter(x -> x.getValue().equals("a"))
            .findFirst()
            .orElseThrow()
            .getKey();

    // A real job on one node of block a: idleFirst rolls block b first.
    long job = e2e.sbatch(busy, 900);
    try {
      rollWhileSampling(domainOf, busy, job, rev1);
    } finally {
      // Frees the pool nodes for the next suite even when an assertion failed.
      if (e2e.slurm.getJob(job).running()) {
        e2e.scancel(job);
      }
      e2e.deleteNodeSet(SET, LIMIT);
    }
  }

  private void rollWhileSampling(Map<String, String> domainOf, String busy, long job, String rev1)
      throws Exception {
    Await.until("job running", LIMIT, EVERY, () -> e2e.slurm.getJob(job), SlurmJob::running);
    Await.until(
        busy + " reported busy",
        LIMIT,
        EVERY,
        () -> e2e.nodeSetStatus(SET).nodes(),
        ns ->
            ns.stream()
                .anyMatch(
                    n ->
                        n.pod().equals(busy)
                            && (n.slurmState().startsWith("alloc")
                                || n.slurmState().startsWith("mixed"))));

    try (DomainSampler sampler =
        new DomainSampler(e2e.slurm, e2e.k8s, domainOf, 2, Duration.ofMillis(200))) {
      e2e.patchSpec(
          SET,
          "{\"template\":{\"spec\":{\"containers\":[{\"name\":\"slurmd\",\"image\":\"slurmd:v2\"}]}}}");
      Await.until(
          "every node but the busy one at the new revision",
          Duration.ofMinutes(4),
          EVERY,
          () -> e2e.nodeSetStatus(SET).nodes(),
          ns ->
              ns.stream()
                  .filter(n -> !n.pod().equals(busy))
                  .allMatch(n -> n.phase() == NodePhase.READY && !rev1.equals(n.revision())));
      Await.until(
          busy + " draining",
          LIMIT,
          EVERY,
          () -> e2e.nodeStatus(busy).phase(),
          p -> p == NodePhase.DRAINING);
      Thread.sleep(3_000);
      assertEquals(rev1, e2e.nodeStatus(busy).revision(), "a busy node waits for its job");
      assertTrue(e2e.slurm.getJob(job).running(), "the job was left alone");
      e2e.scancel(job);
      String rev2 = e2e.nodeSetStatus(SET).status().updateRevision();
      assertNotEquals(rev1, rev2);
      Await.until(
          "all at the new revision", Duration.ofMinutes(2), EVERY, () -> allAt(rev2), b -> b);
      Thread.sleep(2_000); // a few more polls after the end
      System.out.printf(
          "topology rollout: %d polls, domains taken %s, most out at once per domain %s,"
              + " most domains out on one poll %d, violations %s%n",
          sampler.polls(),
          sampler.domainsTaken(),
          sampler.maxOutPerDomain(),
          sampler.maxDomainsOnOnePoll(),
          sampler.violations());

      assertTrue(sampler.polls() > 20, "the sampler polled: " + sampler.polls());
      assertEquals(List.of(), sampler.violations());
      assertEquals(List.of("b", "a"), sampler.domainsTaken(), "the idle block first");
      assertEquals(1, sampler.maxDomainsOnOnePoll(), "never nodes of two blocks out at once");
      assertTrue(
          sampler.maxOutPerDomain().get("a") == 2 && sampler.maxOutPerDomain().get("b") <= 2,
          "two of block a at once, at most two of b: " + sampler.maxOutPerDomain());
    }
    List<String> pods = e2e.nodeSetStatus(SET).nodes().stream().map(NodeSummary::pod).toList();
    assertEquals(6, pods.size());
  }
}
