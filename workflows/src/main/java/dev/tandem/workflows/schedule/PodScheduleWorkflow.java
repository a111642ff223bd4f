package dev.tandem.workflows.schedule;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmJobView;
import dev.tandem.workflows.support.Requires;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;

/**
 * One pod scheduled through Slurm, from validation to the end of its placeholder job. Workflow id
 * {@code schedule/<ns>/<pod>/<uid>}. See {@link PodScheduleWorkflowImpl} for the algorithm.
 */
@WorkflowInterface
public interface PodScheduleWorkflow extends PodScheduleRun {

  /** The Slurm watcher saw the placeholder job change (or vanish: state {@code GONE}). */
  @SignalMethod(name = Names.SIGNAL_JOB_OBSERVED)
  @Requires({"id", "state"})
  void jobObserved(SlurmJobView job);

  /** The pod watcher saw the pod change (or vanish). */
  @SignalMethod(name = Names.SIGNAL_POD_OBSERVED)
  @Requires({"name", "exists"})
  void podObserved(PodView pod);
}
