package dev.tandem.workflows.node;

import dev.tandem.workflows.model.DrainCause;
import dev.tandem.workflows.model.DrainPolicy;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.UpdateCommand;
import dev.tandem.workflows.node.NodeLifecycleState.Operation;
import java.util.Objects;

/**
 * What a node's owners ask of it ({@code drain}, {@code undrain}, {@code delete}, {@code update}
 * signals), taken into {@link NodeLifecycleState} as intent: a hold, an operation, a target. Each
 * answers whether the loop must wake to act on it; duplicates (watchers re-send their state after a
 * restart) and requests that change nothing do not wake it; garbage never gets here ({@code
 * SignalInbox} records it). The loop in {@link NodeLifecycleWorkflowImpl} does the acting.
 */
final class NodeCommands {
  private final NodeLifecycleInput input;
  private final NodeLifecycleState s;
  private final NodeEffects fx;

  NodeCommands(NodeLifecycleInput input, NodeLifecycleState s, NodeEffects fx) {
    this.input = input;
    this.s = s;
    this.fx = fx;
  }

  /** A hold under the command's cause; a hold already held with the same reason is a duplicate. */
  boolean drain(NodeCommand c) {
    DrainCause cause = c.cause().orElseThrow();
    String before = s.holds.get(cause.label());
    fx.hold(cause, c.reason());
    if (Objects.equals(before, s.holds.get(cause.label()))) {
      return false; // a duplicate (watchers re-send their state after a restart)
    }
    fx.timeline("drain-requested", c.owner() + ": " + Objects.toString(c.reason(), ""));
    return true;
  }

  /** Lifts the owner's hold; an owner that holds nothing changes nothing. */
  boolean undrain(NodeCommand c) {
    if (s.holds.remove(c.owner()) == null) {
      // Watchers send undrains after a restart without knowing what was held: stay silent for
      // them; tell a person (manual) why nothing happened.
      if (DrainCause.MANUAL.label().equals(c.owner())) {
        String others =
            s.holds.isEmpty() ? "" : " (held by: " + String.join(", ", s.holds.keySet()) + ")";
        fx.timeline("undrain-ignored", "no drain held by " + c.owner() + others);
      }
      return false;
    }
    fx.timeline("undrain-requested", c.owner() + ": " + Objects.toString(c.reason(), ""));
    return true;
  }

  /** The delete operation (it replaces a pending update) and its hold. */
  boolean delete(NodeCommand c) {
    if (s.operation == Operation.DELETE || s.phase == NodePhase.DELETED) {
      fx.timeline("delete-duplicate", "already deleting");
      return false;
    }
    s.holds.remove(DrainCause.UPDATE.label());
    s.operation = Operation.DELETE;
    s.operationPolicy = c.policy() != null ? c.policy() : input.deletePolicy();
    DrainCause cause = c.cause().orElse(DrainCause.SCALE_DOWN);
    fx.hold(cause, c.reason() == null || c.reason().isBlank() ? "node deleted" : c.reason());
    fx.timeline("delete-requested", c.owner() + ": " + Objects.toString(c.reason(), ""));
    return true;
  }

  /**
   * A new target revision: an update operation now (RollingUpdate), or at the next pod recreation
   * (OnDelete, {@code immediate} false); a target the node already runs cancels a pending update.
   */
  boolean update(UpdateCommand c) {
    if (s.operation == Operation.DELETE || s.phase == NodePhase.DELETED) {
      fx.timeline("update-ignored", "node is being deleted");
      return false;
    }
    String rev = c.target().revision();
    boolean sameTarget = s.target != null && rev.equals(s.target.revision());
    s.target = c.target();
    boolean atTarget = s.current != null && rev.equals(s.current.revision());
    if (atTarget) {
      if (s.operation == Operation.UPDATE && s.phase != NodePhase.UPDATING) {
        s.operation = Operation.NONE;
        s.holds.remove(DrainCause.UPDATE.label());
        fx.timeline("update-cancelled", "already at revision " + rev);
        return true;
      }
      return false;
    }
    if (!c.immediate()) {
      if (!sameTarget) {
        fx.timeline(
            "update-deferred", "revision " + rev + " at the next pod recreation (OnDelete)");
      }
      return false;
    }
    if (s.operation == Operation.UPDATE && sameTarget) {
      return false; // duplicate
    }
    s.operation = Operation.UPDATE;
    s.operationPolicy = c.policy() != null ? c.policy() : DrainPolicy.waitForever();
    String from = s.current == null ? "none" : s.current.revision();
    fx.hold(DrainCause.UPDATE, "revision " + from + " -> " + rev);
    fx.timeline("update-requested", "revision " + from + " -> " + rev);
    return true;
  }
}
