package dev.tandem.workflows.schedule;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.SlurmJobView;
import dev.tandem.workflows.support.Requires;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;

/**
 * A gang (pods sharing annotation {@code tandem.dev/pod-group}) scheduled through Slurm as one
 * placeholder job with one node per member. Workflow id {@code schedule-group/<ns>/<group>} ({@link
 * Names#podGroupWorkflowId}), started by the pod watcher with signal-with-start of {@code
 * memberObserved}. See {@link PodGroupWorkflowImpl} for the algorithm.
 */
@WorkflowInterface
public interface PodGroupWorkflow extends PodGroupRun {

  /** The pod watcher saw a member change, appear or vanish. */
  @SignalMethod(name = Names.SIGNAL_MEMBER_OBSERVED)
  @Requires({"request.name", "request.uid"})
  void memberObserved(GroupMember member);

  /** The Slurm watcher saw the group's placeholder job change (or vanish: state {@code GONE}). */
  @SignalMethod(name = Names.SIGNAL_JOB_OBSERVED)
  @Requires({"id", "state"})
  void jobObserved(SlurmJobView job);
}
