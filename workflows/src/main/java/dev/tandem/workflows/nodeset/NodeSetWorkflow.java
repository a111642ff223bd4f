package dev.tandem.workflows.nodeset;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.ClusterHealth;
import dev.tandem.workflows.model.HeldDrains;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.NodeReport;
import dev.tandem.workflows.model.NodeSetDemand;
import dev.tandem.workflows.model.NodeSetSpecView;
import dev.tandem.workflows.support.Requires;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;

/**
 * Keeps a NodeSet's actual nodes equal to its spec. Workflow id {@code nodeset/<ns>/<name>},
 * started and signalled (signal-with-start) by the NodeSet watcher. See {@link NodeSetWorkflowImpl}
 * for the algorithm.
 */
@WorkflowInterface
public interface NodeSetWorkflow extends NodeSetRun {

  /** The custom resource's spec changed (or was re-read). */
  @SignalMethod(name = Names.SIGNAL_SPEC_CHANGED)
  @Requires("generation")
  void specChanged(NodeSetSpecView spec);

  /** The custom resource is being deleted: drain and delete every node, then release it. */
  @SignalMethod(name = Names.SIGNAL_DELETE)
  @Requires("owner")
  void delete(NodeCommand command);

  /** A node workflow's news. */
  @SignalMethod(name = Names.SIGNAL_NODE_REPORTED)
  @Requires({"pod", "ordinal", "phase"})
  void nodeReported(NodeReport report);

  /** The watchers' view of Slurm's or Kubernetes' reachability (see {@link ClusterHealth}). */
  @SignalMethod(name = Names.SIGNAL_CLUSTER_HEALTH)
  @Requires({"component", "reachable"})
  void clusterHealth(ClusterHealth health);

  /** The budget holds back automatic drains of these nodes (condition AutomaticDrainsHeld). */
  @SignalMethod(name = Names.SIGNAL_DRAINS_HELD)
  void drainsHeld(HeldDrains held);

  /** What Slurm's queue asks of this NodeSet, when it is autoscaled ({@link Autoscaler}). */
  @SignalMethod(name = Names.SIGNAL_DEMAND_OBSERVED)
  @Requires("nodes")
  void demandObserved(NodeSetDemand demand);

  /** Re-evaluate now. */
  @SignalMethod(name = Names.SIGNAL_RESYNC)
  void resync();
}
