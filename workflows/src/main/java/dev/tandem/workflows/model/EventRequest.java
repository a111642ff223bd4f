package dev.tandem.workflows.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * A Kubernetes Event to record, so {@code kubectl describe} shows what Tandem did.
 *
 * @param namespace namespace of the object
 * @param kind {@code Pod} or {@code NodeSet}
 * @param name object name
 * @param type {@code Normal} or {@code Warning}
 * @param reason one CamelCase word
 * @param message what happened
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record EventRequest(
    String namespace, String kind, String name, String type, String reason, String message) {
  public static EventRequest normal(NodeRef n, String reason, String message) {
    return new EventRequest(n.namespace(), "Pod", n.pod(), "Normal", reason, message);
  }

  public static EventRequest warning(NodeRef n, String reason, String message) {
    return new EventRequest(n.namespace(), "Pod", n.pod(), "Warning", reason, message);
  }
}
