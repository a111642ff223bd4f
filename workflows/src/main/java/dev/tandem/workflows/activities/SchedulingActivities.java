package dev.tandem.workflows.activities;

import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.EventRequest;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmJobView;
import dev.tandem.workflows.schedule.AnnounceRequest;
import dev.tandem.workflows.schedule.Announced;
import dev.tandem.workflows.schedule.BindRequest;
import dev.tandem.workflows.schedule.PlaceholderJob;
import dev.tandem.workflows.schedule.Placement;
import dev.tandem.workflows.schedule.PlacementRequest;
import dev.tandem.workflows.schedule.Preemptor;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;
import java.util.List;

/**
 * What the pod scheduling workflow ({@code schedule/<ns>/<pod>/<uid>}) does to Slurm and
 * Kubernetes. Implemented in {@code activities} (slurmrestd client and fabric8).
 *
 * <p>Every method is idempotent: running it again after a crash changes nothing more. Refusals that
 * retrying cannot fix are non-retryable application failures of type {@link
 * SlurmActivities#REJECTED} (Slurm) or {@link KubeActivities#REJECTED} (Kubernetes), with the
 * refusing side's own message.
 */
@ActivityInterface(namePrefix = "Sched")
public interface SchedulingActivities {

  /**
   * Submits the placeholder job unless a job named {@link PlaceholderJob#name()} (the pod uid tag)
   * is already queued or running, and returns that job: a retried or replayed submit never makes a
   * second job. Submits with requeue disabled and no node list.
   */
  @ActivityMethod
  SlurmJobView submitPlaceholder(PlaceholderJob job);

  /**
   * Submits the placeholder job without first listing Slurm's jobs for its tag: for a workflow's
   * first submit, which no earlier attempt can have made (the pod workflow decides, see {@code
   * PodScheduleWorkflowImpl}). Returns a job this worker already submitted for the tag (a workflow
   * task that failed after the submit and was retried here), and a retry of this activity (its
   * first answer may be lost after Slurm took the job) looks first, exactly as {@link
   * #submitPlaceholder}. Submits with requeue disabled and no node list.
   */
  @ActivityMethod
  SlurmJobView submitFirstPlaceholder(PlaceholderJob job);

  /** Every job Slurm still lists with the pod's uid tag (by name), any state. */
  @ActivityMethod
  List<SlurmJobView> findJobs(String podUid);

  /**
   * Cancels the job if Slurm still lists it in a non-final state (an ended or unknown job is not an
   * error); returns the job afterwards, or a {@link SlurmJobView#GONE} view.
   */
  @ActivityMethod
  SlurmJobView cancelJob(long jobId, String reason);

  /**
   * Like {@link #cancelJob}, for a job whose pods have all stopped (succeeded, failed, or gone):
   * the placeholder is ended at once, without waiting Slurm's {@code KillWait}, so its nodes go to
   * the next job now. Never for a pod that may still run.
   */
  @ActivityMethod
  SlurmJobView releaseJob(long jobId, String reason);

  /**
   * Binds the pod (only the one with the request's uid) to the Kubernetes node with the Binding API
   * ({@code pods/binding}) and records the job id and Slurm node in annotations {@code
   * tandem.dev/job-id} and {@code tandem.dev/slurm-node}. Already bound to that node is success;
   * bound elsewhere is {@link KubeActivities#REJECTED}. Returns the pod afterwards ({@link
   * PodView#absent} if it is gone or has another uid).
   */
  @ActivityMethod
  PodView bindPod(BindRequest request);

  /**
   * The bind of a pod whose placeholder job runs, in one call: finds the Kubernetes node of the
   * request's Slurm node (as {@link #slurmNodeToK8sNode}; none: nothing else is done), binds the
   * pod there (as {@link #bindPod}) and, if the pod is then bound there and not ending, sets {@code
   * SlurmScheduled=True} ({@code JobRunning}, transition time {@link PlacementRequest#at()}) and
   * records the {@code Scheduled} event. Idempotent as {@link #bindPod}: a retry finds the pod
   * bound and writes the same condition again.
   */
  @ActivityMethod
  Placement placePod(PlacementRequest request);

  /**
   * Evicts the pod (only the one with {@code uid}) with the Eviction API, honouring its grace
   * period; returns what is left: absent, or terminating, or (eviction refused for now, e.g. by a
   * PodDisruptionBudget) the pod as it is.
   */
  @ActivityMethod
  PodView evictPod(String namespace, String name, String uid, String reason);

  /**
   * The ending of a pod, in one call: sets the request's condition (one strategic merge patch
   * carrying the uid; a failure fails the call, nothing else done), records its event (best
   * effort), then evicts the pod as {@link #evictPod} does. An eviction that fails is not this
   * call's failure: {@link Announced#pod()} is null and the caller evicts again with {@link
   * #evictPod}, so a retry never records the event twice.
   */
  @ActivityMethod
  Announced announceAndEvict(AnnounceRequest request);

  /** Sets one condition in the pod's status (only the pod with {@code uid}); absent pod is fine. */
  @ActivityMethod
  void setPodCondition(String namespace, String name, String uid, Condition condition);

  /** Records a Kubernetes Event (best effort: never fails the caller). */
  @ActivityMethod
  void recordEvent(EventRequest event);

  /**
   * The Kubernetes node that hosts the Slurm node (through its slurmd pod), or null if no running
   * slurmd pod serves that Slurm node.
   */
  @ActivityMethod
  String slurmNodeToK8sNode(String slurmNode);

  /**
   * Who preempted placeholder job {@code jobId}, as far as Slurm tells ({@link Preemptor}): the job
   * that runs on its nodes (those of Slurm's record of the job, else {@code nodes}) and started at
   * or after its {@code preempt_time} (its own start when Slurm gives none). One read of the job
   * and one listing of Slurm's jobs; no wait.
   */
  @ActivityMethod
  Preemptor findPreemptor(long jobId, List<String> nodes);

  /** The pod, or {@link PodView#absent} if there is none. */
  @ActivityMethod
  PodView getPod(String namespace, String name);
}
