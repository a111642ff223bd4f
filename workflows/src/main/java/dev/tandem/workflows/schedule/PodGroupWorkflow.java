package dev.tandem.workflows.schedule;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.SlurmJobView;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * A gang (pods sharing annotation {@code tandem.dev/pod-group}) scheduled through Slurm as one
 * placeholder job with one node per member. Workflow id {@code schedule-group/<ns>/<group>} ({@link
 * Names#podGroupWorkflowId}), started by the pod watcher with signal-with-start of {@code
 * memberObserved}. See {@link PodGroupWorkflowImpl} for the algorithm.
 */
@WorkflowInterface
public interface PodGroupWorkflow {

  /** Runs until nothing is left to do; returns {@link GroupPhase#DONE}. */
  @WorkflowMethod(name = "PodGroup")
  GroupPhase run(PodGroupInput input);

  /** The pod watcher saw a member change, appear or vanish. */
  @SignalMethod(name = Names.SIGNAL_MEMBER_OBSERVED)
  void memberObserved(GroupMember member);

  /** The Slurm watcher saw the group's placeholder job change (or vanish: state {@code GONE}). */
  @SignalMethod(name = Names.SIGNAL_JOB_OBSERVED)
  void jobObserved(SlurmJobView job);

  @QueryMethod(name = Names.QUERY_STATUS)
  PodGroupStatus status();
}
