package dev.tandem.workflows.nodeset;

import static dev.tandem.workflows.nodeset.NodeSetPlannerTest.node;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.model.Autoscaling;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeSetDemand;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The {@link Autoscaler}'s idle rule and decisions, without Temporal. */
class AutoscalerTest {
  @Test
  void idleMeansServingIdleAndNotCompletingWhateverFlagsSayNothingOfJobs() {
    for (String idle : List.of("idle", "idle+DYNAMIC_NORM", "idle+CLOUD")) {
      assertTrue(Autoscaler.idleInSlurm(node(0, NodePhase.READY, "a", idle, null)), idle);
    }
    for (String not :
        List.of(
            "idle+COMPLETING",
            "idle+DRAIN",
            "idle+DYNAMIC_NORM+NOT_RESPONDING",
            "mixed",
            "allocated+DYNAMIC_NORM",
            "down",
            "unknown")) {
      assertFalse(Autoscaler.idleInSlurm(node(0, NodePhase.READY, "a", not, null)), not);
    }
    assertFalse(Autoscaler.idleInSlurm(node(0, NodePhase.REGISTERING, "a", "idle", null)));
  }

  @Test
  void aDynamicNodeIdleForIdleTimeIsGivenBack() {
    Autoscaling a = new Autoscaling(0, 4, 60, 5);
    AutoscaleState st = new AutoscaleState();
    Autoscaler.demand(st, new NodeSetDemand(0, 0, 0, 0, Instant.EPOCH), 0);
    List<NodeSetState.Entry> active =
        List.of(node(0, NodePhase.READY, "a", "idle+DYNAMIC_NORM", null));
    assertEquals(null, Autoscaler.decide(a, 1, active, st, 1_000));
    assertEquals(61_000, Autoscaler.nextMillis(a, st, 1_000));
    assertEquals(null, Autoscaler.decide(a, 1, active, st, 60_999));
    assertEquals(0, Autoscaler.decide(a, 1, active, st, 61_000).replicas());
  }
}
