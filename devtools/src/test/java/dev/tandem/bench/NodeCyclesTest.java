package dev.tandem.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.TimelineEntry;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeCyclesTest {
  private static TimelineEntry at(long s, String event) {
    return new TimelineEntry(Instant.ofEpochSecond(s), NodePhase.READY, event, "");
  }

  @Test
  void theCycleRunsFromTheLastUpdateRequestToTheRegistrationAfterIt() {
    List<TimelineEntry> t =
        List.of(
            at(0, "started"),
            at(5, "registered"),
            at(100, "update-requested"),
            at(101, "drain-started"),
            at(130, "registered"),
            at(200, "drain-requested"));
    assertEquals(30_000_000_000L, NodeCycles.cycle(t));
  }

  @Test
  void noUpdateOrNoRegistrationYetIsNoCycle() {
    assertNull(NodeCycles.cycle(List.of(at(0, "started"), at(5, "registered"))));
    assertNull(NodeCycles.cycle(List.of(at(0, "update-requested"), at(5, "drain-started"))));
    assertNull(NodeCycles.cycle(null));
  }

  @Test
  void theRolloutEndsAreTheFirstRequestAndTheLastReturnSinceTheSpec() {
    List<TimelineEntry> a =
        List.of(at(5, "registered"), at(100, "update-requested"), at(130, "registered"));
    List<TimelineEntry> b =
        List.of(at(6, "update-requested"), at(102, "update-requested"), at(125, "registered"));
    Instant[] ends = NodeCycles.ends(List.of(a, b), Instant.ofEpochSecond(99));
    assertEquals(Instant.ofEpochSecond(100), ends[0]);
    assertEquals(Instant.ofEpochSecond(130), ends[1]);
    assertNull(NodeCycles.ends(List.of(a), Instant.ofEpochSecond(200))[0]);
  }
}
