package dev.tandem.workflows.remediation;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.tandem.workflows.model.TimelineLine;
import java.time.Instant;

/**
 * One line of a remediation's record, shown by {@code tandem history <k8s-node>}.
 *
 * @param at workflow time
 * @param step the state the line belongs to
 * @param event e.g. {@code entered}, {@code trigger}, {@code recheck-failed}, {@code timeout}
 * @param detail free text
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record RemediationTimelineEntry(
    Instant at, RemediationStep step, String event, String detail) implements TimelineLine {
  /** Not a field of its own: the stage's label, for {@code tandem history}. */
  @JsonIgnore
  @Override
  public String stageLabel() {
    return step == null ? null : step.label();
  }
}
