package dev.tandem.workflows.schedule;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmJobView;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.time.Duration;

/**
 * One pod scheduled through Slurm, from validation to the end of its placeholder job. Workflow id
 * {@code schedule/<ns>/<pod>/<uid>}. See {@link PodScheduleWorkflowImpl} for the algorithm.
 */
@WorkflowInterface
public interface PodScheduleWorkflow {

  /**
   * The workflow task timeout its starters set (Temporal's default, stated so that it cannot change
   * under the workflow): a task a crashed worker held is tried again only after it, which is what
   * lets the first task's submit skip the listing ({@code PlaceholderCare}).
   */
  Duration TASK_TIMEOUT = Duration.ofSeconds(10);

  /** Runs until nothing is left to do; returns {@link SchedulePhase#DONE} or INVALID. */
  @WorkflowMethod(name = "PodSchedule")
  SchedulePhase run(PodScheduleInput input);

  /** The Slurm watcher saw the placeholder job change (or vanish: state {@code GONE}). */
  @SignalMethod(name = Names.SIGNAL_JOB_OBSERVED)
  void jobObserved(SlurmJobView job);

  /** The pod watcher saw the pod change (or vanish). */
  @SignalMethod(name = Names.SIGNAL_POD_OBSERVED)
  void podObserved(PodView pod);

  @QueryMethod(name = Names.QUERY_STATUS)
  PodScheduleStatus status();
}
