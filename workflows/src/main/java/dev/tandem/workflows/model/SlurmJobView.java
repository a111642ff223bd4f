package dev.tandem.workflows.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
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
 * @param rejected why a {@code jobObserved} payload is unusable (see {@link Payloads}), or null
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
    Instant observedAt,
    @JsonInclude(JsonInclude.Include.NON_NULL) String rejected)
    implements Lenient {
  public static final String GONE = "GONE";

  public SlurmJobView {
    nodes = nodes == null ? List.of() : List.copyOf(nodes);
  }

  public SlurmJobView(
      long id,
      String name,
      String comment,
      String state,
      String stateReason,
      List<String> nodes,
      int restartCount,
      Instant observedAt) {
    this(id, name, comment, state, stateReason, nodes, restartCount, observedAt, null);
  }

  /** Accepts any JSON; see {@link Payloads}. */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static SlurmJobView fromJson(JsonNode n) {
    return Payloads.read(
        n,
        SlurmJobView.class,
        why -> new SlurmJobView(0, null, null, null, null, null, 0, null, why));
  }
}
