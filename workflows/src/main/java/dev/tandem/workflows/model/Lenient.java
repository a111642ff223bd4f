package dev.tandem.workflows.model;

/**
 * A signal payload that reads itself from any JSON ({@link Payloads}) and says why what arrived
 * cannot be used.
 */
public interface Lenient {
  /** Why the payload cannot be used, or null. */
  String rejected();
}
