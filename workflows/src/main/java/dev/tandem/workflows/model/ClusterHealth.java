package dev.tandem.workflows.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/**
 * What the watchers know about a dependency's reachability, sent to every NodeSet workflow (signal
 * {@code clusterHealth}) when it changes and again now and then, so that an outage shows on the
 * NodeSet within seconds instead of when activity retries give up.
 *
 * @param component {@link #SLURM} or {@link #KUBERNETES}
 * @param reachable whether the last attempt to reach it succeeded
 * @param message what failed (the error), or what answers; never null in practice
 * @param since when the current state began (watcher clock)
 * @param observedAt when the watcher last checked (watcher clock)
 * @param rejected why a {@code clusterHealth} payload is unusable (see {@link Payloads}), or null
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ClusterHealth(
    String component,
    boolean reachable,
    String message,
    Instant since,
    Instant observedAt,
    @JsonInclude(JsonInclude.Include.NON_NULL) String rejected)
    implements Lenient {
  public static final String SLURM = "slurm";
  public static final String KUBERNETES = "kubernetes";

  public ClusterHealth(
      String component, boolean reachable, String message, Instant since, Instant observedAt) {
    this(component, reachable, message, since, observedAt, null);
  }

  /** Accepts any JSON; see {@link Payloads}. */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static ClusterHealth fromJson(JsonNode n) {
    return Payloads.read(
        n, ClusterHealth.class, why -> new ClusterHealth(null, false, null, null, null, why));
  }
}
