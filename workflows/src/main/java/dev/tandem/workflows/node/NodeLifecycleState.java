package dev.tandem.workflows.node;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.tandem.workflows.model.DrainPolicy;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.PodTemplate;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmNodeView;
import dev.tandem.workflows.model.TimelineEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Everything a {@link NodeLifecycleWorkflow} knows, in one serializable object: it is the whole
 * memory carried across continue-as-new, so nothing else may hold state. Mutated only by the
 * workflow thread (signal handlers and the main loop).
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public final class NodeLifecycleState {

  /** Pending operation; at most one, and delete wins over update. */
  public enum Operation {
    NONE,
    UPDATE,
    DELETE
  }

  /**
   * Whether the pod may carry the label {@code tandem.dev/evictable} (which lets Kubernetes evict
   * it past the NodeSet's PodDisruptionBudget).
   */
  public enum Eviction {
    /** Known not to carry it: the budget protects the pod. */
    PROTECTED,
    /** Asked for, or a removal failed: may carry it (fail closed: removed before serving). */
    UNKNOWN,
    /** Carries it: the node is drained and runs no job. */
    EVICTABLE
  }

  NodePhase phase = NodePhase.PROVISIONING;

  /** Revision of the pod that runs (or last ran). */
  PodTemplate current;

  /** Revision to run: what the next pod is created with. */
  PodTemplate target;

  Operation operation = Operation.NONE;

  /** Drain policy of the pending operation. */
  DrainPolicy operationPolicy;

  /** Workflow time (ms) the current drain started waiting for jobs, or 0. */
  long drainStartedMillis;

  /** Drains Tandem holds: cause label to the Slurm reason, ordered by cause precedence. */
  Map<String, String> holds = new TreeMap<>();

  Eviction eviction = Eviction.PROTECTED;

  /** The pod the eviction label was asked for (its uid), or null. */
  String evictableUid;

  /** Last views of the world, from activities or watcher signals. */
  PodView pod;

  SlurmNodeView slurm;

  /** Jobs run on the node: true, false, or null when unknown (counts as busy). */
  Boolean busy;

  List<Long> jobIds = new ArrayList<>();

  /**
   * A revision whose pod the cluster refused as invalid (ensurePod failed with KubePodRejected): no
   * pod is created at it again; the node waits for another target. Cleared once a pod at another
   * revision is created. Null when none.
   */
  String rejectedRevision;

  /** Why the cluster refused {@link #rejectedRevision}, in one line. */
  String rejection;

  /** The current problem (stuck, refused), or null. */
  String problem;

  long phaseSinceMillis;

  List<TimelineEntry> timeline = new ArrayList<>();

  /** Sequence number of the last report sent to the NodeSet workflow. */
  long reportSeq;

  public NodePhase phase() {
    return phase;
  }

  public Map<String, String> holds() {
    return holds;
  }
}
