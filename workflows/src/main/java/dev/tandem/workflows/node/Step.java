package dev.tandem.workflows.node;

import dev.tandem.workflows.model.NodePhase;

/**
 * What a phase handler decided: move to {@code next} (recording {@code event}/{@code detail} in the
 * timeline), or stay and wait up to {@code waitSeconds} for a signal.
 */
record Step(NodePhase next, String event, String detail, long waitSeconds) {

  static Step to(NodePhase next, String event, String detail) {
    return new Step(next, event, detail, 0);
  }

  static Step stay(NodePhase phase, long waitSeconds) {
    return new Step(phase, null, null, waitSeconds);
  }
}
