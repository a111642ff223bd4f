package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.k8s.NodeSetResources;
import dev.tandem.k8s.NodeSetSpecs;
import dev.tandem.k8s.api.NodeSet;
import dev.tandem.workflows.model.NodeSetRef;
import dev.tandem.workflows.model.NodeSetSpecView;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(KubeNamespace.class)
class NodeSetWatcherTest extends WatcherTestBase {
  static KubernetesClient client;

  private NodeSetWatcher watcher;

  @BeforeEach
  void start() {
    watcher = nodeSetWatcher(client);
    watcher.start();
    Wait.until("synced", watcher::synced);
  }

  @AfterEach
  void stop() {
    watcher.close();
  }

  private GenericKubernetesResource get(String name) {
    return NodeSetResources.generic(client).withName(name).get();
  }

  @Test
  void aNewNodeSetGetsTheFinalizerAndItsWorkflowTheSpec() {
    NodeSetResources.generic(client)
        .resource(
            K8sObjects.nodeSet(
                "gpu-a",
                "  replicas: 2\n  template:\n    spec:\n      containers:\n      - name: slurmd\n"
                    + "        image: tandem/slurmd:22.05\n"))
        .create();
    Wait.until(
        "finalizer", () -> get("gpu-a").getMetadata().getFinalizers().contains(NodeSet.FINALIZER));
    Wait.until(
        "spec signal",
        () ->
            !signals
                .matching(s -> s.target().equals("nodeset/" + client.getNamespace() + "/gpu-a"))
                .isEmpty());
    RecordingSignals.Sent s =
        signals
            .matching(x -> x.target().equals("nodeset/" + client.getNamespace() + "/gpu-a"))
            .get(0);
    assertEquals("specChanged", s.signal());
    NodeSetSpecView v = (NodeSetSpecView) s.payload();
    assertEquals(2, v.replicas());
    assertTrue(v.problems().isEmpty(), v.problems().toString());
  }

  @Test
  void theRemediationPolicyIsKnownFromTheFirstSightAndForgottenOnDelete() {
    List<NodeSetRef> told = new CopyOnWriteArrayList<>();
    watcher.onPolicyChanged(told::add);
    NodeSetRef ref = new NodeSetRef(client.getNamespace(), "gpu-r");
    NodeSetResources.generic(client)
        .resource(
            K8sObjects.nodeSet(
                "gpu-r",
                "  replicas: 1\n  remediation: {}\n  template:\n    spec:\n      containers:\n"
                    + "      - name: slurmd\n        image: tandem/slurmd:22.05\n"))
        .create();
    Wait.until("told", () -> told.contains(ref));
    // What the converter makes of spec.remediation, as the NodeSet's workflow gets it.
    assertEquals(NodeSetSpecs.toView(get("gpu-r")).remediationPolicy(), watcher.policy(ref));
    Wait.until(
        "finalizer", () -> get("gpu-r").getMetadata().getFinalizers().contains(NodeSet.FINALIZER));
    int before = told.size();
    NodeSetResources.generic(client).withName("gpu-r").delete();
    // As the NodeSet workflow does once its nodes are gone: lift the finalizer; the object goes.
    NodeSetResources.generic(client)
        .withName("gpu-r")
        .patch(
            io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE),
            "{\"metadata\":{\"finalizers\":null}}");
    Wait.until("told of the delete", () -> told.size() > before);
    assertEquals(false, watcher.policy(ref).enabled());
  }

  @Test
  void garbageInTheSpecReachesTheWorkflowAsProblemsNotAsACrash() {
    NodeSetResources.generic(client)
        .resource(
            // What a real API server lets through (the CRD checks the template only shallowly): a
            // misspelt pod field.
            K8sObjects.nodeSet(
                "junk",
                "  replicas: 1\n  template:\n    spec:\n      nodeSelectr: {a: b}\n"
                    + "      containers:\n      - name: slurmd\n        image: x\n"))
        .create();
    Wait.until("spec signal", () -> !signals.matching(s -> s.target().endsWith("/junk")).isEmpty());
    NodeSetSpecView v =
        (NodeSetSpecView) signals.matching(s -> s.target().endsWith("/junk")).get(0).payload();
    assertTrue(!v.problems().isEmpty());
    // The watcher keeps working for other NodeSets.
    NodeSetResources.generic(client)
        .resource(
            K8sObjects.nodeSet(
                "ok",
                "  replicas: 1\n  template:\n    spec:\n      containers:\n      - name: slurmd\n"
                    + "        image: x\n"))
        .create();
    Wait.until("ok signal", () -> !signals.matching(s -> s.target().endsWith("/ok")).isEmpty());
  }

  @Test
  void deletionIsSignalledWhileTheFinalizerHoldsTheResource() {
    NodeSetResources.generic(client)
        .resource(
            K8sObjects.nodeSet(
                "bye",
                "  replicas: 1\n  template:\n    spec:\n      containers:\n      - name: slurmd\n"
                    + "        image: x\n"))
        .create();
    Wait.until(
        "finalizer", () -> get("bye").getMetadata().getFinalizers().contains(NodeSet.FINALIZER));
    NodeSetResources.generic(client).withName("bye").delete();
    Wait.until(
        "delete signal",
        () ->
            !signals
                .matching(s -> s.signal().equals("delete") && s.target().endsWith("/bye"))
                .isEmpty());
    assertTrue(get("bye") != null, "held by the finalizer until the workflow releases it");
  }

  private io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget budget(String name) {
    return client.policy().v1().podDisruptionBudget().withName(name).get();
  }

  @Test
  void aNodeSetGetsAPodDisruptionBudgetThatIsRepairedAtOnceWhenEditedOrDeleted() {
    // No resync pass within the test: the repairs below come from watching the budget.
    watcher.close();
    watcher =
        new NodeSetWatcher(client, coalescer, signals, metrics, java.time.Duration.ofMinutes(10));
    watcher.start();
    Wait.until("synced", watcher::synced);
    BudgetWatcher budgets = new BudgetWatcher(client, metrics, watcher::budgetTouched);
    budgets.start();
    try {
      budgetIsMadeAndRepaired();
    } finally {
      budgets.close();
    }
  }

  private void budgetIsMadeAndRepaired() {
    NodeSetResources.generic(client)
        .resource(
            K8sObjects.nodeSet(
                "gpu-b",
                "  replicas: 2\n  template:\n    spec:\n      containers:\n      - name: slurmd\n"
                    + "        image: tandem/slurmd:22.05\n"))
        .create();
    Wait.until("budget", () -> budget("gpu-b-slurm-jobs") != null);
    var pdb = budget("gpu-b-slurm-jobs");
    assertEquals(0, pdb.getSpec().getMaxUnavailable().getIntVal());
    assertEquals("IfHealthyBudget", pdb.getSpec().getUnhealthyPodEvictionPolicy());
    assertEquals(
        java.util.Map.of("tandem.dev/nodeset", "gpu-b"),
        pdb.getSpec().getSelector().getMatchLabels());
    var expr = pdb.getSpec().getSelector().getMatchExpressions();
    assertEquals(1, expr.size());
    assertEquals("tandem.dev/evictable", expr.get(0).getKey());
    assertEquals("DoesNotExist", expr.get(0).getOperator());
    assertEquals("tandem", pdb.getMetadata().getLabels().get("app.kubernetes.io/managed-by"));
    var owners = pdb.getMetadata().getOwnerReferences();
    assertEquals(2, owners.size(), owners.toString());
    assertEquals(get("gpu-b").getMetadata().getUid(), owners.get(0).getUid());
    assertEquals("NodeSet", owners.get(0).getKind());
    assertTrue(owners.get(0).getController());
    // The CRD anchor (as on the pods): the garbage collector keeps the budget while the NodeSet's
    // nodes drain, whatever the propagation policy of its deletion.
    String crdUid =
        client
            .apiextensions()
            .v1()
            .customResourceDefinitions()
            .withName("nodesets.tandem.dev")
            .get()
            .getMetadata()
            .getUid();
    assertEquals("CustomResourceDefinition", owners.get(1).getKind());
    assertEquals(crdUid, owners.get(1).getUid());

    // Someone loosens it: put back at once.
    pdb.getSpec().setMaxUnavailable(new io.fabric8.kubernetes.api.model.IntOrString(1));
    pdb.getSpec().getSelector().setMatchExpressions(java.util.List.of());
    client.policy().v1().podDisruptionBudget().resource(pdb).update();
    Wait.until(
        "repaired",
        () -> {
          var b = budget("gpu-b-slurm-jobs");
          return b.getSpec().getMaxUnavailable().getIntVal() == 0
              && b.getSpec().getSelector().getMatchExpressions().size() == 1;
        });

    // Someone strips its labels (it leaves the watched selection): repaired too.
    client
        .policy()
        .v1()
        .podDisruptionBudget()
        .withName("gpu-b-slurm-jobs")
        .edit(
            b -> {
              b.getMetadata().setLabels(java.util.Map.of());
              return b;
            });
    Wait.until(
        "labels back",
        () ->
            "tandem"
                .equals(
                    budget("gpu-b-slurm-jobs")
                        .getMetadata()
                        .getLabels()
                        .get("app.kubernetes.io/managed-by")));

    // Someone deletes it: back too.
    client.policy().v1().podDisruptionBudget().withName("gpu-b-slurm-jobs").delete();
    Wait.until("recreated", () -> budget("gpu-b-slurm-jobs") != null);
  }
}
