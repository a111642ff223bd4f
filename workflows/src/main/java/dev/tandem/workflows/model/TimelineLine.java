package dev.tandem.workflows.model;

import java.time.Instant;

/**
 * One line of any entity's history (a node's, a pod's, a gang's, a remediation's), as {@code tandem
 * history} prints it. The timeline records differ only in what their stage is (a phase or a
 * remediation step); this is what the CLI reads of each, so it prints all of them alike.
 */
public interface TimelineLine {
  /** Workflow time of the event. */
  Instant at();

  /** The phase or step after the event, as users read it ({@code label()}); null when none. */
  String stageLabel();

  /** What happened, one word. */
  String event();

  /** Why, in words. */
  String detail();
}
