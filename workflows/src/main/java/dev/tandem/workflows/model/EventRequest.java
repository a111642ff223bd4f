package dev.tandem.workflows.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A Kubernetes Event to record, so {@code kubectl describe} shows what Tandem did.
 *
 * @param namespace namespace of the object
 * @param kind {@code Pod} or {@code NodeSet}
 * @param name object name
 * @param type {@code Normal} or {@code Warning}
 * @param reason one CamelCase word
 * @param message what happened
 * @param uid the object's uid when the caller knows it (the event then names it without the
 *     recorder reading the object first), else null; absent from requests of older workflows
 * @param group the gang ({@code tandem.dev/pod-group}) of a pod scheduled through Slurm, else null:
 *     the event carries it as that annotation, so a deleted member's events lead to its group's
 *     history; absent from requests of older workflows
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record EventRequest(
    String namespace,
    String kind,
    String name,
    String type,
    String reason,
    String message,
    @JsonInclude(JsonInclude.Include.NON_NULL) String uid,
    @JsonInclude(JsonInclude.Include.NON_NULL) String group) {
  public EventRequest(
      String namespace, String kind, String name, String type, String reason, String message) {
    this(namespace, kind, name, type, reason, message, null, null);
  }

  public EventRequest(
      String namespace,
      String kind,
      String name,
      String type,
      String reason,
      String message,
      String uid) {
    this(namespace, kind, name, type, reason, message, uid, null);
  }

  /** The same event, on a member of gang {@code group}. */
  public EventRequest inGroup(String group) {
    return new EventRequest(namespace, kind, name, type, reason, message, uid, group);
  }

  /** An event on the pod {@code namespace/name} whose {@code uid} the caller knows. */
  public static EventRequest pod(
      String namespace, String name, String uid, boolean warning, String reason, String message) {
    return new EventRequest(
        namespace, "Pod", name, warning ? "Warning" : "Normal", reason, message, uid);
  }

  public static EventRequest normal(NodeRef n, String reason, String message) {
    return new EventRequest(n.namespace(), "Pod", n.pod(), "Normal", reason, message);
  }

  public static EventRequest warning(NodeRef n, String reason, String message) {
    return new EventRequest(n.namespace(), "Pod", n.pod(), "Warning", reason, message);
  }
}
