package dev.tandem.workflows.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/**
 * What Kubernetes says about a slurmd pod.
 *
 * @param exists false if the pod is absent (all other fields then say nothing)
 * @param name pod name
 * @param uid pod uid
 * @param revision value of the {@code tandem.dev/revision} label, or null
 * @param phase {@code Pending}, {@code Running}, {@code Succeeded}, {@code Failed}, {@code Unknown}
 * @param ready the pod's Ready condition is True
 * @param k8sNode the Kubernetes node it is bound to, or null
 * @param terminating the pod has a deletionTimestamp
 * @param createdAt creationTimestamp
 * @param startedAt status.startTime, or null
 * @param message a short human-readable note (e.g. why it is pending), or null
 * @param rejected why a {@code podObserved} payload is unusable (see {@link Payloads}), or null
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record PodView(
    boolean exists,
    String name,
    String uid,
    String revision,
    String phase,
    boolean ready,
    String k8sNode,
    boolean terminating,
    Instant createdAt,
    Instant startedAt,
    String message,
    @JsonInclude(JsonInclude.Include.NON_NULL) String rejected)
    implements Lenient {

  public PodView(
      boolean exists,
      String name,
      String uid,
      String revision,
      String phase,
      boolean ready,
      String k8sNode,
      boolean terminating,
      Instant createdAt,
      Instant startedAt,
      String message) {
    this(
        exists,
        name,
        uid,
        revision,
        phase,
        ready,
        k8sNode,
        terminating,
        createdAt,
        startedAt,
        message,
        null);
  }

  public static PodView absent(String name) {
    return new PodView(false, name, null, null, null, false, null, false, null, null, null);
  }

  /**
   * The pod with this uid, created then, is gone: what a watcher saw deleted. Its uid and creation
   * time tell a node workflow that already holds the pod's successor that this is not about it.
   */
  public static PodView gone(String name, String uid, Instant createdAt) {
    return new PodView(false, name, uid, null, null, false, null, false, createdAt, null, null);
  }

  /** Accepts any JSON; see {@link Payloads}. */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static PodView fromJson(JsonNode n) {
    return Payloads.read(
        n,
        PodView.class,
        why ->
            new PodView(false, null, null, null, null, false, null, false, null, null, null, why));
  }

  /** Running and not being deleted. */
  public boolean running() {
    return exists && !terminating && "Running".equals(phase);
  }

  /** Ended or failed for good: it has to be replaced to serve again. */
  public boolean failed() {
    return exists && ("Failed".equals(phase) || "Succeeded".equals(phase));
  }
}
