package dev.tandem.workflows.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * How a NodeSet rolls its nodes to a new revision.
 *
 * @param type {@code RollingUpdate} or {@code OnDelete}
 * @param maxUnavailable for RollingUpdate: a count ({@code "1"}) or a percentage of replicas
 *     ({@code "25%"}, rounded down, at least 1); with a topology key, of the domain's nodes
 * @param topologyKey a Kubernetes node label; when set, the rollout goes one topology domain (one
 *     value of the label on the nodes the pods run on) at a time, or null
 * @param domainOrder with a topology key: {@code idleFirst} (default: domains with no running job
 *     first, then by name) or {@code name}; null means the default
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record UpdateStrategy(
    String type,
    String maxUnavailable,
    @JsonInclude(JsonInclude.Include.NON_NULL) String topologyKey,
    @JsonInclude(JsonInclude.Include.NON_NULL) String domainOrder) {
  public static final String ROLLING_UPDATE = "RollingUpdate";
  public static final String ON_DELETE = "OnDelete";

  /** {@link #domainOrder}: domains where no job runs first, then by name. The default. */
  public static final String IDLE_FIRST = "idleFirst";

  /** {@link #domainOrder}: domains by name. */
  public static final String BY_NAME = "name";

  public UpdateStrategy(String type, String maxUnavailable) {
    this(type, maxUnavailable, null, null);
  }

  public static UpdateStrategy rolling(String maxUnavailable) {
    return new UpdateStrategy(ROLLING_UPDATE, maxUnavailable);
  }

  /** The same strategy going by topology domain: {@code key} a node label, {@code order}. */
  public UpdateStrategy byTopology(String key, String order) {
    return new UpdateStrategy(type, maxUnavailable, key, order);
  }

  public boolean onDelete() {
    return ON_DELETE.equals(type);
  }

  /** Whether the rollout goes one topology domain at a time. */
  public boolean byDomain() {
    return !onDelete() && topologyKey != null;
  }

  /** Whether idle domains go first ({@link #IDLE_FIRST}, also when unset). */
  public boolean idleFirst() {
    return domainOrder == null || IDLE_FIRST.equals(domainOrder);
  }
}
