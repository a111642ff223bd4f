package dev.tandem.workflows.nodeset;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.tandem.workflows.model.ClusterHealth;
import dev.tandem.workflows.model.HeldDrains;
import dev.tandem.workflows.model.NodeReport;
import dev.tandem.workflows.model.NodeSetSpecView;
import dev.tandem.workflows.model.NodeSetStatusView;
import dev.tandem.workflows.model.PodTemplate;
import dev.tandem.workflows.model.TimelineEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Everything a {@link NodeSetWorkflow} knows, in one serializable object carried across
 * continue-as-new. Mutated only by the workflow thread.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public final class NodeSetState {

  /** One node the NodeSet tracks. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public static final class Entry {
    String pod;
    int ordinal;

    /** Last report from the node workflow (null until the first one). */
    NodeReport report;

    /** Revision the node workflow was started with. */
    String startRevision;

    /** Workflow time (ms) of the last report, or of the start. */
    long lastHeardMillis;

    /** The node workflow was started (or found running). */
    boolean started;

    /** A delete was sent (scale-down or NodeSet deletion). */
    boolean deleteSent;

    /** The last revision an update was sent for. */
    String updateSentFor;

    /** Whether the update sent was immediate (RollingUpdate) or deferred (OnDelete). */
    boolean updateSentImmediate;

    /**
     * With a topology key: the domain the node was in when the update was sent ({@link
     * TopologyRollout}), or null.
     */
    String rollDomain;

    /**
     * Workflow time (ms) of the next probe of a node workflow found already running that has not
     * reported since ({@link StartProbes}), or 0: none pending.
     */
    long probeAtMillis;

    /** The wait before the probe after next: doubles from two poll intervals up to one resync. */
    long probeEveryMillis;

    public String pod() {
      return pod;
    }

    public NodeReport report() {
      return report;
    }
  }

  /** The last valid spec: what the workflow acts on. */
  NodeSetSpecView spec;

  /** The latest spec received, valid or not. */
  NodeSetSpecView latest;

  /** Why {@code latest} is invalid, or null. */
  String invalidMessage;

  /** The spec revision whose pod the cluster refused ({@link PodRejection}), or null. */
  String rejectedRevision;

  /** The pod whose create was refused, and why (one line). */
  String rejectedPod;

  String rejectedWhy;

  /** The newest spec template a node's pod ran: what serves while a newer one is rejected. */
  PodTemplate goodTemplate;

  boolean deleting;

  /**
   * While deleting: the spec of another custom resource of the same name (another uid), created
   * once this one was gone; the next run's, by continue-as-new.
   */
  NodeSetSpecView successor;

  String deleteReason;

  /** Pods were listed once to adopt what exists. */
  boolean adopted;

  Map<Integer, Entry> nodes = new TreeMap<>();

  /** With a topology key: the domain the rolling update works on, or null. */
  String rollDomain;

  /** The status last written to the custom resource. */
  NodeSetStatusView written;

  /** The watchers' latest view of each dependency, by {@link ClusterHealth#component()}. */
  Map<String, ClusterHealth> health = new TreeMap<>();

  /** Workflow time (ms) each entry of {@link #health} arrived: how stale it is. */
  Map<String, Long> healthHeardMillis = new TreeMap<>();

  /**
   * The budget's last {@code drainsHeld}: unhealthy nodes of this NodeSet kept in service because
   * the budget is full; null when none.
   */
  HeldDrains heldDrains;

  /** The held nodes the last event announced, comma-separated (null: none held). */
  String heldAnnounced;

  /** The autoscaler's memory ({@link Autoscaler}); unused while the NodeSet is not autoscaled. */
  AutoscaleState auto = new AutoscaleState();

  /** Signals whose payload could not be used, the latest {@link #MAX_REJECTED_SIGNALS}. */
  List<TimelineEntry> rejectedSignals = new ArrayList<>();

  static final int MAX_REJECTED_SIGNALS = 10;

  /**
   * The nodes the NodeSet should have: its autoscaler's count while {@code spec.autoscaling} is set
   * (and it has decided one), else {@code spec.replicas}; 0 without a valid spec.
   */
  int desired() {
    if (spec == null) {
      return 0;
    }
    return spec.autoscaling() != null && auto.replicas != null ? auto.replicas : spec.replicas();
  }

  public Map<Integer, Entry> nodes() {
    return nodes;
  }
}
