package dev.tandem.workflows.schedule;

import dev.tandem.workflows.activities.SchedulingActivities;
import dev.tandem.workflows.activities.SlurmActivities;
import dev.tandem.workflows.model.SlurmJobView;
import dev.tandem.workflows.support.ActivityStubs;
import dev.tandem.workflows.support.Scoped;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;
import java.time.Instant;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * What the pod's and the group's hands ({@link ScheduleEffects}, {@link GroupEffects}) share: how
 * they run one activity (as a local activity: recorded as a marker, no task-queue round trip) and
 * the calls both make alike.
 *
 * <p>A failure (retries exhausted, or a refusal) is never thrown into the workflow, it becomes the
 * workflow's shown problem and a null answer, and the phase tries again on its timer. A Slurm
 * refusal is kept apart ({@link #slurmRefused}): for a submit it means the pod or group is invalid.
 */
abstract class ActivityCalls {
  private static final Logger log = Workflow.getLogger(ActivityCalls.class);

  private final String ref;
  private final Supplier<String> problem;
  private final Consumer<String> setProblem;

  /** Slurm's message when it refused the last call for good, else null. */
  String slurmRefused;

  /**
   * @param ref what the workflow schedules ({@code <ns>/<pod>} or {@code <ns>/<group>}), for logs
   * @param problem reads the workflow's shown problem
   * @param setProblem writes it
   */
  protected ActivityCalls(String ref, Supplier<String> problem, Consumer<String> setProblem) {
    this.ref = ref;
    this.problem = problem;
    this.setProblem = setProblem;
  }

  /** The answer, or null after a failure (then shown as "cannot {@code what}: ..."). */
  <T> T call(String what, Supplier<T> f) {
    slurmRefused = null;
    try {
      T v = Scoped.call(f); // freed when it ends, not at the end of the run (Scoped)
      String p = problem.get();
      if (p != null && p.startsWith("cannot " + what)) {
        setProblem.accept(null);
      }
      return v;
    } catch (ActivityFailure e) {
      Throwable t = e;
      while (t.getCause() != null) {
        t = t.getCause();
      }
      String msg = t instanceof ApplicationFailure af ? af.getOriginalMessage() : t.getMessage();
      slurmRefused = refusal(e, t, msg);
      log.warn("{}: cannot {}: {}", ref, what, msg);
      setProblem.accept("cannot " + what + ": " + msg);
      return null;
    }
  }

  /**
   * Slurm's words if the failure is its refusal for good, else null. The activity's own failure
   * ({@code e}'s cause) says so by its type, {@link SlurmActivities#REJECTED}; the real activities
   * attach the Slurm client's exception to it as its cause, so the innermost failure ({@code root})
   * is of that exception's type. Either says Slurm refused for good.
   */
  private static String refusal(ActivityFailure e, Throwable root, String rootMessage) {
    if (root instanceof ApplicationFailure af && SlurmActivities.REJECTED.equals(af.getType())) {
      return rootMessage;
    }
    if (e.getCause() instanceof ApplicationFailure af
        && SlurmActivities.REJECTED.equals(af.getType())) {
      return af.getOriginalMessage();
    }
    return null;
  }

  /** Cancels job {@code id}; false if Slurm could not be reached (retry later). */
  boolean cancelJob(long id, String reason) {
    return cancelJob(id, reason, false);
  }

  /**
   * Cancels job {@code id}, or releases it when {@code release} (its pods have stopped: no {@code
   * KillWait}); false if Slurm could not be reached (retry later). The answer goes to {@link
   * #jobAnswered}.
   */
  boolean cancelJob(long id, String reason, boolean release) {
    SlurmJobView j =
        release
            ? call("release job", () -> api("release job " + id).releaseJob(id, reason))
            : call("cancel job", () -> api("cancel job " + id).cancelJob(id, reason));
    if (j != null) {
      jobAnswered(id, j);
    }
    return j != null;
  }

  /**
   * Who preempted job {@code id} on {@code nodes}, as far as Slurm tells ({@link Preemptor}); null
   * if Slurm could not be asked.
   */
  Preemptor findPreemptor(long id, java.util.List<String> nodes) {
    return call(
        "find the preempting job",
        () -> api("find preemptor of job " + id).findPreemptor(id, nodes));
  }

  /** Keeps what a cancel or release of job {@code id} answered, when it is the workflow's job. */
  abstract void jobAnswered(long id, SlurmJobView j);

  /** The scheduling activities, as local activities; {@code summary} names the call. */
  SchedulingActivities api(String summary) {
    return ActivityStubs.scheduling(summary);
  }

  Instant now() {
    return Instant.ofEpochMilli(Workflow.currentTimeMillis());
  }
}
