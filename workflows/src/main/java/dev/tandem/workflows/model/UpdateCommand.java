package dev.tandem.workflows.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * Sent by the NodeSet workflow to move a node to a new pod revision.
 *
 * @param target the revision to run
 * @param immediate true: drain and replace the pod now (RollingUpdate); false: only remember the
 *     revision and use it the next time the pod is recreated (OnDelete)
 * @param policy drain policy for this update
 * @param rejected why the signal's payload is unusable (see {@link Payloads}), or null
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record UpdateCommand(
    PodTemplate target,
    boolean immediate,
    DrainPolicy policy,
    @JsonInclude(JsonInclude.Include.NON_NULL) String rejected)
    implements Lenient {

  public UpdateCommand(PodTemplate target, boolean immediate, DrainPolicy policy) {
    this(target, immediate, policy, null);
  }

  /** Accepts any JSON; see {@link Payloads}. */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static UpdateCommand fromJson(JsonNode n) {
    return Payloads.read(n, UpdateCommand.class, why -> new UpdateCommand(null, false, null, why));
  }
}
