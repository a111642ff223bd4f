package dev.tandem.workflows.node;

/**
 * The one check of a node's signal that needs the node ({@code SignalInbox} has read and checked
 * the payload): an observation names this node. Another name is somebody's mistake, recorded in the
 * timeline as {@code signal-rejected} ({@code tandem history}) and never acted on.
 */
final class SignalChecks {
  private final NodeEffects fx;

  SignalChecks(NodeEffects fx) {
    this.fx = fx;
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
