package dev.tandem.activities;

/**
 * How a reboot of a Kubernetes node is asked for and how Tandem learns it was carried out
 * (docs/remediation.md, "Plugging a reboot action"). Chosen by {@code TANDEM_REMEDIATION_REBOOT}
 * ({@link RebootActions#parse}). Both methods are idempotent: asking twice with the same token is
 * one request, and state lives on the Node object where it can, so a worker restart loses nothing
 * it needs. Fail closed: {@link #done} is false whenever it cannot tell.
 */
public interface RebootAction {

  /** Asks for the reboot of {@code node}; {@code token} names this request. */
  void request(String node, String token, String reason);

  /** Whether the reboot asked for with {@code token} has been carried out. */
  boolean done(String node, String token);

  /** For logs and the worker's start-up line, e.g. {@code annotation}. */
  String describe();
}
