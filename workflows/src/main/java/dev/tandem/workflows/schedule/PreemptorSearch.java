package dev.tandem.workflows.schedule;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.temporal.workflow.Workflow;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * After a preempted pod (a gang: its members) has been evicted, the search for the job that
 * preempted it, kept in the workflow's state so that it survives continue-as-new. Slurm names no
 * preemptor, and starts it only once the placeholder is gone ({@code KillWait} after the preemption
 * at most), so the workflow asks twice ({@link Preemptor}), which keeps a preemption storm from
 * costing a listing and a history entry per pod and poll:
 *
 * <ol>
 *   <li>right after the eviction, which finds a preemptor that Slurm started at once (a placeholder
 *       whose pod had already stopped);
 *   <li>else once more when {@code KillWait} plus the margin and two polls have passed, when the
 *       preemptor runs if there is one.
 * </ol>
 *
 * A job found running on the placeholder's nodes that started at or after the preemption is told to
 * the pod with its id, partition and QOS (a {@code SlurmPreempted} event); else the pod is told
 * that no job started there, and when and where the preemption was.
 *
 * <p>A lookup that fails is not retried beyond the limit either: the eviction is done, the search
 * only adds to what the pod was told.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
final class PreemptorSearch {
  /** When the search began, workflow time (0: not yet). */
  long sinceMillis;

  /** The pod was told the outcome. */
  boolean told;

  /**
   * Seconds to wait before asking again, or 0 when the search is over. {@code lookup} asks Slurm
   * (null when it could not), {@code tell} says the outcome once.
   */
  long next(long limitSeconds, Supplier<Preemptor> lookup, Consumer<String> tell) {
    if (told) {
      return 0;
    }
    long now = Workflow.currentTimeMillis();
    if (sinceMillis == 0) {
      sinceMillis = now;
    }
    Preemptor p = lookup.get();
    long waited = (now - sinceMillis) / 1000;
    if (p != null && p.found()) {
      told = true;
      tell.accept(p.message(waited));
      return 0;
    }
    if (waited < limitSeconds) {
      return limitSeconds - waited;
    }
    told = true;
    if (p != null) {
      tell.accept(p.message(waited));
    }
    return 0;
  }

  /** The nodes a job held, or those its pod was bound to when Slurm's view lists none. */
  static List<String> nodes(List<String> jobNodes, String boundTo) {
    if (jobNodes != null && !jobNodes.isEmpty()) {
      return jobNodes;
    }
    return boundTo == null ? List.of() : List.of(boundTo);
  }
}
