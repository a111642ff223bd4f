package dev.tandem.topology;

/** The labels contradict each other; nothing is rendered (the last good topology stays). */
public final class TopologyException extends RuntimeException {
  public TopologyException(String message) {
    super(message);
  }
}
