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
  HONEST;

  /** Asks Temporal (records a marker on first use in a new run); workflow thread only. */
  static Rules current() {
    return Versions.of(Versions.HONEST_STATUS) >= 1 ? HONEST : LEGACY;
  }
}
