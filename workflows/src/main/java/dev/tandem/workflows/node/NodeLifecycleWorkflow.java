package dev.tandem.workflows.node;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeStatus;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmNodeView;
import dev.tandem.workflows.model.UpdateCommand;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * One Slurm node backed by one slurmd pod, from provisioning to deletion. Workflow id {@code
 * node/<ns>/<pod>}. See {@link NodeLifecycleWorkflowImpl} for the algorithm.
 */
@WorkflowInterface
public interface NodeLifecycleWorkflow {

  /** Runs until the node is deleted; returns {@link NodePhase#DELETED}. */
  @WorkflowMethod(name = "NodeLifecycle")
  NodePhase run(NodeLifecycleInput input);

  /** Holds the node drained for {@code owner} (e.g. manual, k8s-cordon) until undrained. */
  @SignalMethod(name = Names.SIGNAL_DRAIN)
  void drain(NodeCommand command);

  /** Releases the drain held by {@code owner}; other owners' drains stay. */
  @SignalMethod(name = Names.SIGNAL_UNDRAIN)
  void undrain(NodeCommand command);

  /** Drains, waits for jobs (per policy), then deletes the pod and the Slurm node. */
  @SignalMethod(name = Names.SIGNAL_DELETE)
  void delete(NodeCommand command);

  /** Moves the node to a new pod revision (now, or at the next recreation). */
  @SignalMethod(name = Names.SIGNAL_UPDATE)
  void update(UpdateCommand command);

  /** A watcher saw the pod change. */
  @SignalMethod(name = Names.SIGNAL_POD_OBSERVED)
  void podObserved(PodView pod);

  /** A watcher saw the Slurm node change. */
  @SignalMethod(name = Names.SIGNAL_SLURM_OBSERVED)
  void slurmObserved(SlurmNodeView node);

  /** Re-read Kubernetes and Slurm now and report to the NodeSet. */
  @SignalMethod(name = Names.SIGNAL_RESYNC)
  void resync();

  @QueryMethod(name = Names.QUERY_STATUS)
  NodeStatus status();
}
