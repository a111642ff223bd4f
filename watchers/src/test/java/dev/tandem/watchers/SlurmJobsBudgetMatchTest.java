package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import org.junit.jupiter.api.Test;

/**
 * The NodeSet's budget is rewritten only when it differs in what the API server keeps: on a server
 * that drops {@code spec.unhealthyPodEvictionPolicy} (Kubernetes 1.26), a stored budget without it
 * matches, so no write changes nothing.
 */
class SlurmJobsBudgetMatchTest {
  private static PodDisruptionBudget want() {
    GenericKubernetesResource set = new GenericKubernetesResource();
    set.setMetadata(
        new ObjectMetaBuilder().withName("gpu").withNamespace("default").withUid("u1").build());
    return SlurmJobsBudget.desired(set, "crd-uid");
  }

  private static PodDisruptionBudget storedWithoutPolicy(PodDisruptionBudget want) {
    return new PodDisruptionBudgetBuilder(want)
        .editSpec()
        .withUnhealthyPodEvictionPolicy(null)
        .endSpec()
        .build();
  }

  @Test
  void theBudgetAsWrittenMatches() {
    assertTrue(SlurmJobsBudget.matches(want(), want(), true));
  }

  @Test
  void aServerThatDropsThePolicyIsLearnedFromWhatItStored() {
    PodDisruptionBudget want = want();
    PodDisruptionBudget stored = storedWithoutPolicy(want);
    assertTrue(SlurmJobsBudget.dropsPolicy(stored, want));
    assertFalse(SlurmJobsBudget.dropsPolicy(want, want), "a server that keeps it");
    assertFalse(SlurmJobsBudget.matches(stored, want, true), "before it is learned: one write");
    assertTrue(
        SlurmJobsBudget.matches(stored, want, false), "after: no write that changes nothing");
  }

  @Test
  void otherDifferencesStillRepair() {
    PodDisruptionBudget want = want();
    PodDisruptionBudget loosened =
        new PodDisruptionBudgetBuilder(storedWithoutPolicy(want))
            .editSpec()
            .withNewMaxUnavailable(1)
            .endSpec()
            .build();
    assertFalse(SlurmJobsBudget.matches(loosened, want, false));
  }
}
