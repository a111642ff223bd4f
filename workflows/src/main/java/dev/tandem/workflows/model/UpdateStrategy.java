package dev.tandem.workflows.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * How a NodeSet rolls its nodes to a new revision.
 *
 * @param type {@code RollingUpdate} or {@code OnDelete}
 * @param maxUnavailable for RollingUpdate: a count ({@code "1"}) or a percentage of replicas
 *     ({@code "25%"}, rounded down, at least 1)
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record UpdateStrategy(String type, String maxUnavailable) {
  public static final String ROLLING_UPDATE = "RollingUpdate";
  public static final String ON_DELETE = "OnDelete";

  public static UpdateStrategy rolling(String maxUnavailable) {
    return new UpdateStrategy(ROLLING_UPDATE, maxUnavailable);
  }

  public boolean onDelete() {
    return ON_DELETE.equals(type);
  }
}
