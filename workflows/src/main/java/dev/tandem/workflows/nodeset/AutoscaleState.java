package dev.tandem.workflows.nodeset;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.tandem.workflows.model.NodeSetDemand;
import java.util.Map;
import java.util.TreeMap;

/** What the {@link Autoscaler} remembers, part of {@link NodeSetState}. */
@JsonIgnoreProperties(ignoreUnknown = true)
public final class AutoscaleState {
  /** The watchers' last {@code demandObserved}, or null before the first. */
  NodeSetDemand demand;

  /** Workflow time (ms) since which the demand has asked for nodes without a break. */
  long demandSinceMillis;

  /** Workflow time (ms) since which each idle node (by pod) has been idle. */
  Map<String, Long> idleSinceMillis = new TreeMap<>();

  /** The replicas the autoscaler set last, or null: it has set none. */
  Integer replicas;

  /** Why, in one line. */
  String reason;

  /** Workflow time (ms) of that decision. */
  long decidedAtMillis;

  /** The write of {@link #replicas} to {@code spec.replicas} has not succeeded yet. */
  boolean writePending;

  /**
   * The spec generation the workflow had when its last write of {@code spec.replicas} succeeded.
   */
  long writtenGeneration;
}
