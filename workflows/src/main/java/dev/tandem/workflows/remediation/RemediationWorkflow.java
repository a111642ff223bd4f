package dev.tandem.workflows.remediation;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.support.Requires;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;

/**
 * The repair of one Kubernetes node, from the first trigger to a terminal state. Workflow id {@code
 * remediation/<k8s-node>}; started with signal-with-start of {@code trigger}, so a second trigger
 * joins the running one. See docs/remediation.md.
 */
@WorkflowInterface
public interface RemediationWorkflow extends RemediationRun {

  /** A trigger (watcher or operator); the first starts the ladder, later ones join it. */
  @SignalMethod(name = Names.SIGNAL_TRIGGER)
  @Requires("kind")
  void trigger(RemediationTrigger trigger);

  /** A watcher saw the node or its Slurm nodes change: re-check now instead of at the next tick. */
  @SignalMethod(name = Names.SIGNAL_RECHECK)
  void recheck();

  /** The budget granted this node its slot. */
  @SignalMethod(name = Names.SIGNAL_SLOT_GRANTED)
  @Requires("k8sNode")
  void slotGranted(SlotRequest granted);
}
