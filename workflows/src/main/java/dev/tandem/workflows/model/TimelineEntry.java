package dev.tandem.workflows.model;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.time.Instant;

/**
 * One line of a node's history, as {@code tandem history} shows it.
 *
 * @param at workflow time of the event
 * @param phase the phase after the event
 * @param event what happened, one word ({@code provisioned}, {@code drain-requested}, ...)
 * @param detail why, in words
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record TimelineEntry(Instant at, NodePhase phase, String event, String detail)
    implements TimelineLine {
  /** Not a field of its own: the stage's label, for {@code tandem history}. */
  @JsonIgnore
  @Override
  public String stageLabel() {
    return phase == null ? null : phase.label();
  }
}
