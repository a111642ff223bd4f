package dev.tandem.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.devstack.kube.OnConflict;
import dev.tandem.slurm.SlurmNode;
import dev.tandem.slurm.testing.Await;
import dev.tandem.workflows.model.Condition;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Every node turns unhealthy at once (a faulty GPU health exporter): with a budget of one, exactly
 * one Slurm node is drained, in real Slurm, the other two stay in service, and the NodeSet says why
 * (docs/remediation.md, "Budgets"; docs/runbook.md, "Mass fault"). Then the same for a topology
 * block: one node per rack; then the cluster's limit ({@code TANDEM_CLUSTER_BUDGET=2}) over a
 * NodeSet budget of three. Three local Kubernetes nodes, one slurmd pod on each (the local
 * scheduler puts a pod on the node with the fewest); the real worker and watchers, remediation off
 * ({@code enabled: false}: only the unhealthy-condition drain acts).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MassFaultE2EIT {
  private static final String SET = "e2e";
  private static final List<String> K8S = List.of("local-1", "local-2", "local-3");
  private static final String CONDITION = "GpuUnhealthy";
  private static final String RACK = "example.com/rack";
  private static final Duration LIMIT = Duration.ofSeconds(90);
  private static final Duration EVERY = Duration.ofMillis(250);
  private static E2EStack e2e;

  @BeforeAll
  static void start() throws Exception {
    e2e = E2EStack.start(Map.of("TANDEM_CLUSTER_BUDGET", "2"));
    // The local kubelet registers its nodes after the stack is up.
    Await.until(
        "3 Kubernetes nodes",
        LIMIT,
        EVERY,
        () -> K8S.stream().filter(n -> e2e.k8s.nodes().withName(n).get() != null).count(),
        n -> n == 3);
    label("local-1", "A");
    label("local-2", "A");
    label("local-3", "B");
    e2e.apply(manifest("{maxPerNodeSet: 1}"));
    Await.until("3 in service", LIMIT, EVERY, () -> inService().size(), n -> n == 3);
    List<String> hosts = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      hosts.add(e2e.pod(SET + "-" + i).orElseThrow().getSpec().getNodeName());
    }
    assertEquals(3, hosts.stream().distinct().count(), "one pod per Kubernetes node: " + hosts);
  }

  @AfterEach
  void healthy() {
    for (String n : K8S) {
      setCondition(n, false);
    }
    Await.until("3 back in service", LIMIT, EVERY, () -> inService().size(), n -> n == 3);
    Await.until("nothing held", LIMIT, EVERY, () -> held().status(), Condition.FALSE::equals);
    assertEquals("WithinBudget", held().reason());
  }

  @AfterAll
  static void stop() {
    if (e2e == null) {
      return;
    }
    try {
      if (e2e.nodeSet(SET) != null) {
        e2e.deleteNodeSet(SET, LIMIT);
      }
    } catch (Exception | AssertionError e) {
      System.out.println("MassFaultE2EIT: cleanup failed: " + e);
    } finally {
      e2e.close();
    }
  }

  private static String manifest(String budget) {
    return "apiVersion: tandem.dev/v1alpha1\nkind: NodeSet\nmetadata:\n  name: "
        + SET
        + "\n  namespace: default\nspec:\n  replicas: 3\n  template:\n    spec:\n"
        + "      containers:\n      - name: slurmd\n        image: slurmd:v1\n"
        + "  remediation:\n    enabled: false\n    budget: "
        + budget
        + "\n";
  }

  @Test
  @Order(1)
  void threeOfThreeUnhealthyWithABudgetOfOneDrainOne() {
    for (String n : K8S) {
      setCondition(n, true);
    }
    Await.until("one drained", LIMIT, EVERY, MassFaultE2EIT::drained, d -> d.size() == 1);
    Await.until("the NodeSet says why", LIMIT, EVERY, MassFaultE2EIT::held, Condition::statusTrue);
    sleep(Duration.ofSeconds(5)); // several Slurm polls and watcher passes: still one
    List<String> drained = drained();
    assertEquals(1, drained.size(), "exactly one drained: " + drained);
    assertEquals(2, inService().size(), "two stay in service: " + inService());
    String reason = e2e.slurmNode(drained.get(0)).map(SlurmNode::reason).orElse("");
    assertTrue(reason.startsWith("tandem:k8s-unhealthy: GpuUnhealthy=True"), reason);
    Condition c = held();
    assertEquals("MassFault", c.reason());
    assertTrue(
        c.message()
            .startsWith(
                "2 unhealthy nodes kept in service, the budget is spent (NodeSet"
                    + " default/e2e full: 1/1"),
        c.message());
    assertTrue(warningEvent(), "a Warning event MassFault on the NodeSet");
  }

  @Test
  @Order(2)
  void aTopologyBlockLosesOneNodeAndTheOtherBlockItsOwn() {
    allUnhealthyWithBudget(
        "{\"maxPerNodeSet\":3,\"domainLabel\":\"" + RACK + "\",\"maxPerDomain\":1}", 2);
    List<String> hostsDrained =
        drained().stream()
            .map(p -> e2e.pod(p).orElseThrow().getSpec().getNodeName())
            .sorted()
            .toList();
    assertEquals(2, hostsDrained.size(), "one per rack: " + hostsDrained);
    assertTrue(hostsDrained.contains("local-3"), "rack B's node: " + hostsDrained);
    assertEquals(1, inService().size(), "one of rack A stays in service: " + inService());
    Condition c = held();
    assertTrue(
        c.message()
            .startsWith(
                "1 unhealthy node kept in service, the budget is spent (domain "
                    + RACK
                    + "=A full: 1/1"),
        c.message());
  }

  @Test
  @Order(3)
  void theClusterLimitHoldsWhatTheNodeSetWouldAllow() {
    // A merge patch: null removes the rack limit of the previous test.
    allUnhealthyWithBudget("{\"maxPerNodeSet\":3,\"domainLabel\":null,\"maxPerDomain\":null}", 2);
    assertEquals(2, drained().size(), "TANDEM_CLUSTER_BUDGET=2: " + drained());
    assertEquals(1, inService().size(), "one stays in service: " + inService());
    Condition c = held();
    assertTrue(
        c.message()
            .startsWith(
                "1 unhealthy node kept in service, the budget is spent (cluster full: 2/2;"
                    + " TANDEM_CLUSTER_BUDGET)"),
        c.message());
  }

  // ---- helpers ----

  private static Condition held() {
    Condition c = e2e.nodeSetStatus(SET).status().condition(Condition.AUTOMATIC_DRAINS_HELD);
    return c == null ? new Condition(Condition.AUTOMATIC_DRAINS_HELD, "?", "", "", null) : c;
  }

  /** The NodeSet's Slurm nodes drained in Slurm (read from Slurm, as scontrol shows them). */
  private static List<String> drained() {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Optional<SlurmNode> n = e2e.slurmNode(SET + "-" + i);
      if (n.isPresent() && n.get().drainFlag()) {
        out.add(SET + "-" + i);
      }
    }
    return out;
  }

  private static List<String> inService() {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Optional<SlurmNode> n = e2e.slurmNode(SET + "-" + i);
      if (n.isPresent() && "idle".equals(n.get().state()) && !n.get().drainFlag()) {
        out.add(SET + "-" + i);
      }
    }
    return out;
  }

  private static boolean warningEvent() {
    List<Event> events =
        e2e.k8s.v1().events().inNamespace("default").list().getItems().stream()
            .filter(e -> SET.equals(e.getInvolvedObject().getName()))
            .filter(e -> "NodeSet".equals(e.getInvolvedObject().getKind()))
            .toList();
    boolean found =
        events.stream()
            .anyMatch(e -> "Warning".equals(e.getType()) && "MassFault".equals(e.getReason()));
    if (!found) {
      System.out.println(
          events.stream()
              .map(e -> e.getReason() + ": " + e.getMessage())
              .collect(Collectors.joining("\n")));
    }
    return found;
  }

  private static void label(String node, String rack) {
    OnConflict.retry(
        () ->
            e2e.k8s
                .nodes()
                .withName(node)
                .edit(
                    n ->
                        new NodeBuilder(n)
                            .editMetadata()
                            .addToLabels(RACK, rack)
                            .endMetadata()
                            .build()));
  }

  /** What a GPU health agent does: sets (or clears) the condition in the Node's status. */
  private static void setCondition(String node, boolean bad) {
    e2e.setNodeCondition(
        node, CONDITION, bad ? "ExporterFault" : null, bad ? "DCGM exporter lost every GPU" : null);
  }

  /**
   * Sets {@code budget} ({@code spec.remediation.budget} as JSON), lets the watchers read it, turns
   * every node unhealthy and waits until {@code drains} are drained and the NodeSet holds the rest;
   * then 5 s more (several Slurm polls and watcher passes), after which nothing may have changed.
   */
  private static void allUnhealthyWithBudget(String budget, int drains) {
    e2e.patchSpec(SET, "{\"remediation\":{\"enabled\":false,\"budget\":" + budget + "}}");
    sleep(Duration.ofSeconds(3)); // the watchers read the new budget
    for (String n : K8S) {
      setCondition(n, true);
    }
    Await.until(
        drains + " drained", LIMIT, EVERY, MassFaultE2EIT::drained, d -> d.size() == drains);
    Await.until("the NodeSet says why", LIMIT, EVERY, MassFaultE2EIT::held, Condition::statusTrue);
    sleep(Duration.ofSeconds(5));
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
