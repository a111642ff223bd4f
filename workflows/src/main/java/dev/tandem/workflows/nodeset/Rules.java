package dev.tandem.workflows.nodeset;

import dev.tandem.workflows.support.Versions;

/**
 * Which decision rules a NodeSet workflow run follows. A run that replays a history recorded before
 * {@link Versions#HONEST_STATUS} keeps the rules it was recorded with (until it continues as new);
 * every other run takes the current ones. The planner and the status calculator are pure functions
 * of the state and these rules.
 */
enum Rules {
  /**
   * Before honest-status: a node in phase ready counts as available whatever Slurm shows, and
   * Ready=True needs exactly the desired number of nodes.
   */
  LEGACY,

  /** See {@link NodeAvailability} and {@link NodeSetConditions}. */
  HONEST,

  /**
   * HONEST, and pods the cluster refuses are an InvalidSpec-class condition: that revision is not
   * rolled out, nodes stay at (or return to) the last good revision ({@link PodRejection}).
   * Condition messages are one line.
   */
  REJECTIONS;

  /** Asks Temporal (records markers on first use in a new run); workflow thread only. */
  static Rules current() {
    if (Versions.of(Versions.HONEST_STATUS) < 1) {
      return LEGACY;
    }
    return Versions.of(Versions.POD_REJECTED) >= 1 ? REJECTIONS : HONEST;
  }
}
