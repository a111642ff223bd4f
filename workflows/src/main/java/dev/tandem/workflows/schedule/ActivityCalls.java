package dev.tandem.workflows.schedule;

import dev.tandem.workflows.activities.SlurmActivities;
import dev.tandem.workflows.support.Scoped;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * How the pod and the group scheduling workflows run one activity: a failure (retries exhausted, or
 * a refusal) is never thrown into the workflow, it becomes the workflow's shown problem and a null
 * answer, and the phase tries again on its timer. A Slurm refusal is kept apart ({@link
 * #slurmRefused}): for a submit it means the pod or group is invalid.
 */
final class ActivityCalls {
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
  ActivityCalls(String ref, Supplier<String> problem, Consumer<String> setProblem) {
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
      if (t instanceof ApplicationFailure af && SlurmActivities.REJECTED.equals(af.getType())) {
        slurmRefused = msg;
      }
      log.warn("{}: cannot {}: {}", ref, what, msg);
      setProblem.accept("cannot " + what + ": " + msg);
      return null;
    }
  }
}
