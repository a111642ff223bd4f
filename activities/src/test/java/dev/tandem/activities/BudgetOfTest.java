package dev.tandem.activities;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.k8s.Owners;
import dev.tandem.k8s.PodLabels;
import dev.tandem.workflows.model.NodeSetRef;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which PodDisruptionBudget named after a NodeSet its release deletes (NodeSetBudgetCascadeIT). */
class BudgetOfTest {
  private static final NodeSetRef REF = new NodeSetRef("default", "gpu");
  private static final Map<String, String> OURS =
      Map.of(PodLabels.MANAGED_BY, PodLabels.MANAGED_BY_VALUE, PodLabels.NODESET, "gpu");
  private static final OwnerReference ANCHOR =
      new OwnerReferenceBuilder()
          .withApiVersion("apiextensions.k8s.io/v1")
          .withKind("CustomResourceDefinition")
          .withName("nodesets.tandem.dev")
          .withUid("crd-uid")
          .build();

  private static PodDisruptionBudget pdb(Map<String, String> labels, OwnerReference... owners) {
    return new PodDisruptionBudgetBuilder()
        .withNewMetadata()
        .withName(PodLabels.budgetName("gpu"))
        .withLabels(labels)
        .withOwnerReferences(List.of(owners))
        .endMetadata()
        .build();
  }

  @Test
  void ownedByThisNodeSet() {
    assertTrue(NodeSetWrites.budgetOf(pdb(Map.of(), Owners.nodeSet("gpu", "uid-1")), REF, "uid-1"));
  }

  @Test
  void labelledForItAndOwnedByNoNodeSetAnyMore() {
    assertTrue(NodeSetWrites.budgetOf(pdb(OURS, ANCHOR), REF, "uid-1"));
    assertTrue(NodeSetWrites.budgetOf(pdb(OURS), REF, "uid-1"));
  }

  @Test
  void anotherNodeSetsOrSomeoneElsesIsLeftAlone() {
    assertFalse(
        NodeSetWrites.budgetOf(pdb(OURS, Owners.nodeSet("gpu", "uid-2"), ANCHOR), REF, "uid-1"));
    assertFalse(NodeSetWrites.budgetOf(pdb(Map.of(), ANCHOR), REF, "uid-1"));
    assertFalse(
        NodeSetWrites.budgetOf(
            pdb(Map.of(PodLabels.MANAGED_BY, PodLabels.MANAGED_BY_VALUE, PodLabels.NODESET, "cpu")),
            REF,
            "uid-1"));
  }
}
