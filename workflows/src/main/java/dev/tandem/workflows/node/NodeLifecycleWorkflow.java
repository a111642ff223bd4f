package dev.tandem.workflows.node;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmNodeView;
import dev.tandem.workflows.model.UpdateCommand;
import dev.tandem.workflows.support.Requires;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;

/**
 * One Slurm node backed by one slurmd pod, from provisioning to deletion. Workflow id {@code
 * node/<ns>/<pod>}. See {@link NodeLifecycleWorkflowImpl} for the algorithm.
 */
@WorkflowInterface
public interface NodeLifecycleWorkflow extends NodeLifecycleRun {

  /** Holds the node drained for {@code owner} (e.g. manual, k8s-cordon) until undrained. */
  @SignalMethod(name = Names.SIGNAL_DRAIN)
  @Requires({"owner", "reason"})
  void drain(NodeCommand command);

  /** Releases the drain held by {@code owner}; other owners' drains stay. */
  @SignalMethod(name = Names.SIGNAL_UNDRAIN)
  @Requires("owner")
  void undrain(NodeCommand command);

  /** Drains, waits for jobs (per policy), then deletes the pod and the Slurm node. */
  @SignalMethod(name = Names.SIGNAL_DELETE)
  @Requires("owner")
  void delete(NodeCommand command);

  /** Moves the node to a new pod revision (now, or at the next recreation). */
  @SignalMethod(name = Names.SIGNAL_UPDATE)
  @Requires("target.revision")
  void update(UpdateCommand command);

  /** A watcher saw the pod change. */
  @SignalMethod(name = Names.SIGNAL_POD_OBSERVED)
  @Requires({"name", "exists"})
  void podObserved(PodView pod);

  /** A watcher saw the Slurm node change. */
  @SignalMethod(name = Names.SIGNAL_SLURM_OBSERVED)
  @Requires({"name", "known"})
  void slurmObserved(SlurmNodeView node);

  /** Re-read Kubernetes and Slurm now and report to the NodeSet. */
  @SignalMethod(name = Names.SIGNAL_RESYNC)
  void resync();
}
