package dev.tandem.workflows.nodeset;

import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.EventRequest;
import dev.tandem.workflows.model.HeldDrains;
import dev.tandem.workflows.model.NodeSetRef;
import dev.tandem.workflows.support.ActivityStubs;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Workflow;
import java.util.Objects;
import org.slf4j.Logger;

/**
 * What the NodeSet says when the budget holds back automatic drains of its nodes
 * (docs/remediation.md, "Budgets"; docs/runbook.md, "Mass fault"): the condition {@code
 * AutomaticDrainsHeld} (reason {@code MassFault} with the budget's message, else {@code
 * WithinBudget}), and an event when the held nodes change: Warning {@code MassFault} while nodes
 * are held, Normal {@code DrainsResumed} once none is.
 */
final class MassFault {
  private static final Logger log = Workflow.getLogger(MassFault.class);

  private MassFault() {}

  static final String REASON = "MassFault";

  /** The budget's {@code drainsHeld}: an empty list clears. */
  static void heard(NodeSetState s, HeldDrains h) {
    s.heldDrains = h.nodes().isEmpty() ? null : h;
  }

  static Condition condition(NodeSetState s) {
    if (s.heldDrains == null) {
      return NodeSetConditions.cond(
          Condition.AUTOMATIC_DRAINS_HELD,
          false,
          "WithinBudget",
          "no automatic drain is held back by the budget");
    }
    return NodeSetConditions.cond(
        Condition.AUTOMATIC_DRAINS_HELD,
        true,
        REASON,
        NodeSetConditions.oneLine(s.heldDrains.message()));
  }

  /**
   * Records the event once per change of the held nodes (not of their messages, which may carry a
   * counter); best effort, never fails the loop.
   */
  static void announce(NodeSetRef ref, NodeSetState s) {
    String now = s.heldDrains == null ? null : String.join(",", s.heldDrains.nodes());
    if (Objects.equals(now, s.heldAnnounced)) {
      return;
    }
    EventRequest e =
        now == null
            ? new EventRequest(
                ref.namespace(),
                "NodeSet",
                ref.name(),
                "Normal",
                "DrainsResumed",
                "no unhealthy node is kept in service by the budget any more")
            : new EventRequest(
                ref.namespace(),
                "NodeSet",
                ref.name(),
                "Warning",
                REASON,
                NodeSetConditions.oneLine(s.heldDrains.message()));
    try {
      ActivityStubs.kube("event " + e.reason() + " on " + ref).recordEvent(e);
    } catch (ActivityFailure f) {
      log.warn("cannot record event {} on {}: {}", e.reason(), ref, f.getMessage());
    }
    s.heldAnnounced = now;
  }
}
