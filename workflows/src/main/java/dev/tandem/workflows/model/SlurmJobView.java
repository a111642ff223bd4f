package dev.tandem.workflows.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.time.Instant;
import java.util.List;

/**
 * What Slurm says about one job, as sent to the workflow that owns it (signal {@code jobObserved}).
 * Tandem tags the jobs it submits with the owning workflow id in the job comment.
 *
 * @param id job id
 * @param name job name
 * @param comment job comment
 * @param state upper-case state ({@code PENDING}, {@code RUNNING}, ...); {@code GONE} once Slurm no
 *     longer lists it
 * @param stateReason Slurm's reason
 * @param nodes allocated nodes, expanded
 * @param restartCount requeue count
 * @param observedAt when this was read
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record SlurmJobView(
    long id,
    String name,
    String comment,
    String state,
    String stateReason,
    List<String> nodes,
    int restartCount,
    Instant observedAt) {
  public static final String GONE = "GONE";

  public SlurmJobView {
    nodes = nodes == null ? List.of() : List.copyOf(nodes);
  }
}
