package dev.tandem.workflows.nodeset;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.ClusterHealth;
import dev.tandem.workflows.model.HeldDrains;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.NodeReport;
import dev.tandem.workflows.model.NodeSetSnapshot;
import dev.tandem.workflows.model.NodeSetSpecView;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * Keeps a NodeSet's actual nodes equal to its spec. Workflow id {@code nodeset/<ns>/<name>},
 * started and signalled (signal-with-start) by the NodeSet watcher. See {@link NodeSetWorkflowImpl}
 * for the algorithm.
 */
@WorkflowInterface
public interface NodeSetWorkflow {

  /** Runs until the NodeSet is deleted and all its nodes are gone. */
  @WorkflowMethod(name = "NodeSet")
  void run(NodeSetInput input);

  /** The custom resource's spec changed (or was re-read). */
  @SignalMethod(name = Names.SIGNAL_SPEC_CHANGED)
  void specChanged(NodeSetSpecView spec);

  /** The custom resource is being deleted: drain and delete every node, then release it. */
  @SignalMethod(name = Names.SIGNAL_DELETE)
  void delete(NodeCommand command);

  /** A node workflow's news. */
  @SignalMethod(name = Names.SIGNAL_NODE_REPORTED)
  void nodeReported(NodeReport report);

  /** The watchers' view of Slurm's or Kubernetes' reachability (see {@link ClusterHealth}). */
  @SignalMethod(name = Names.SIGNAL_CLUSTER_HEALTH)
  void clusterHealth(ClusterHealth health);

  /** The budget holds back automatic drains of these nodes (condition AutomaticDrainsHeld). */
  @SignalMethod(name = Names.SIGNAL_DRAINS_HELD)
  void drainsHeld(HeldDrains held);

  /** Re-evaluate now. */
  @SignalMethod(name = Names.SIGNAL_RESYNC)
  void resync();

  @QueryMethod(name = Names.QUERY_STATUS)
  NodeSetSnapshot status();
}
