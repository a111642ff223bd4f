package dev.tandem.workflows.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * Payload of {@code drainsHeld} from the budget to a NodeSet workflow: the Kubernetes nodes hosting
 * its pods that are unhealthy and still in service because the budget is full (docs/remediation.md,
 * "Budgets"). An empty list: none held any more.
 *
 * @param nodes the held Kubernetes nodes, in line order
 * @param message why, in one line: how many, the full scope, and each node's trouble
 * @param rejected why a {@code drainsHeld} payload is unusable (see {@link Payloads}), or null
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record HeldDrains(
    List<String> nodes, String message, @JsonInclude(JsonInclude.Include.NON_NULL) String rejected)
    implements Lenient {

  public HeldDrains {
    nodes = nodes == null ? List.of() : List.copyOf(nodes);
  }

  public HeldDrains(List<String> nodes, String message) {
    this(nodes, message, null);
  }

  public static HeldDrains none() {
    return new HeldDrains(List.of(), null);
  }

  /** Accepts any JSON; see {@link Payloads}. */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static HeldDrains fromJson(JsonNode n) {
    return Payloads.read(n, HeldDrains.class, why -> new HeldDrains(null, null, why));
  }
}
