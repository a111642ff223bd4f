package dev.tandem.workflows.node;

import dev.tandem.workflows.model.NodeCommand;

/**
 * How a node workflow's signal handlers tell a usable payload from garbage (see {@code Payloads}):
 * garbage is recorded in the timeline as {@code signal-rejected}, where users look ({@code tandem
 * history}, the Temporal UI), and never acted on.
 */
final class SignalChecks {
  private final NodeEffects fx;

  SignalChecks(NodeEffects fx) {
    this.fx = fx;
  }

  /** Malformed commands are recorded where users look (timeline, history), never acted on. */
  boolean accepted(String signal, NodeCommand c) {
    if (c == null) {
      fx.timeline("signal-rejected", signal + ": empty payload");
      return false;
    }
    if (!c.valid()) {
      fx.timeline("signal-rejected", signal + ": " + c.problem());
      return false;
    }
    return true;
  }

  /**
   * A watcher's observation that can be used; a garbage one is recorded, never acted on. Neither
   * case wakes the loop: a rejection changes no decision, so it issues no command either.
   */
  boolean observed(String signal, String rejected, Object payload) {
    if (payload == null) {
      fx.timeline("signal-rejected", signal + ": empty payload");
      return false;
    }
    if (rejected != null) {
      fx.timeline("signal-rejected", signal + ": " + rejected);
      return false;
    }
    return true;
  }

  /** The observation names this node; another name is somebody's mistake, recorded. */
  boolean about(String signal, String what, String name, String mine) {
    if (mine.equals(name)) {
      return true;
    }
    fx.timeline(
        "signal-rejected",
        signal + ": " + what + " \"" + name + "\" is not this node's " + what + " (" + mine + ")");
    return false;
  }
}
