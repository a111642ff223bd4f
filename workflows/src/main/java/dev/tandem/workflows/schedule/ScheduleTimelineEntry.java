package dev.tandem.workflows.schedule;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.tandem.workflows.model.TimelineLine;
import java.time.Instant;

/**
 * One line of a pod's scheduling history, as {@code tandem history} shows it.
 *
 * @param at workflow time of the event
 * @param phase the phase after the event
 * @param event what happened, one word ({@code submitted}, {@code bound}, {@code preempted}, ...)
 * @param detail why, in words
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ScheduleTimelineEntry(Instant at, SchedulePhase phase, String event, String detail)
    implements TimelineLine {
  /** Not a field of its own: the stage's label, for {@code tandem history}. */
  @JsonIgnore
  @Override
  public String stageLabel() {
    return phase == null ? null : phase.label();
  }
}
