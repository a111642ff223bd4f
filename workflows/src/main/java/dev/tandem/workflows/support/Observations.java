package dev.tandem.workflows.support;

import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmJobView;
import java.time.Instant;
import java.util.Set;

/** Ordering of observations that reach a workflow both by signal and by its own activities. */
public final class Observations {
  private Observations() {}

  /**
   * True when {@code incoming} was observed before what the workflow {@code held}: a late signal
   * that must not replace a newer read. Unknown times never count as late.
   */
  public static boolean late(Instant incoming, Instant held) {
    return incoming != null && held != null && incoming.isBefore(held);
  }

  /**
   * The pod view to hold: {@code incoming}, unless it shows the pod less far along than {@code
   * held} does. For one uid a pod only moves forward (waiting, bound, ending, gone), so a view that
   * goes back was read before the one held: e.g. an activity's answer read before the pod was
   * deleted, returned after the watcher's signal that it is gone. Comparing progress, not clocks,
   * keeps this right whatever the clocks of the watcher and of the activity's worker say.
   */
  public static PodView newerPod(PodView held, PodView incoming) {
    return incoming == null || podProgress(incoming) < podProgress(held) ? held : incoming;
  }

  /**
   * True when {@code incoming} is about an earlier pod of the same name than the one {@code held}:
   * another uid, created before it. Names are unique among existing pods, so that pod was gone
   * before the held one was made, and the view (a watcher's signal that arrived late, e.g. in a
   * burst after its watch reconnected) says nothing about the pod there now. Views without a uid or
   * a creation time are never taken for earlier; neither are two created in the same second (the
   * API's creation times are in whole seconds).
   */
  public static boolean earlierPod(PodView held, PodView incoming) {
    return held != null
        && incoming != null
        && held.uid() != null
        && incoming.uid() != null
        && !held.uid().equals(incoming.uid())
        && held.createdAt() != null
        && incoming.createdAt() != null
        && incoming.createdAt().isBefore(held.createdAt());
  }

  /** 0 waiting, 1 bound, 2 ending (terminating, Succeeded or Failed), 3 gone; -1 for none. */
  static int podProgress(PodView v) {
    if (v == null) {
      return -1;
    }
    if (!v.exists()) {
      return 3;
    }
    if (v.terminating() || "Succeeded".equals(v.phase()) || "Failed".equals(v.phase())) {
      return 2;
    }
    return v.k8sNode() == null || v.k8sNode().isEmpty() ? 0 : 1;
  }

  private static final Set<String> WAITING = Set.of("PENDING", "CONFIGURING");
  private static final Set<String> HOLDING = Set.of("RUNNING", "SUSPENDED");

  /**
   * The job view to hold: {@code incoming}, unless it is about the same job and shows it less far
   * along than {@code held}: a job only moves forward (queued, running, ended) within one start,
   * and a requeue raises its restart count. A submit's answer (read when the job was queued)
   * returned after the watcher saw the job running must not put it back in the queue.
   */
  public static SlurmJobView newerJob(SlurmJobView held, SlurmJobView incoming) {
    if (incoming == null) {
      return held;
    }
    if (held == null || held.id() != incoming.id()) {
      return incoming;
    }
    return jobProgress(incoming) < jobProgress(held) ? held : incoming;
  }

  /**
   * The job view to hold when the watcher signals {@code incoming}. The watcher's views of a job
   * arrive in the order it read them, so a job seen queued after running is taken as Slurm put it
   * back in the queue (a requeue); only a job that had ended coming back with the same restart
   * count is stale (e.g. a view sent before a cancel whose answer the workflow already holds).
   */
  public static SlurmJobView signalledJob(SlurmJobView held, SlurmJobView incoming) {
    if (incoming == null) {
      return held;
    }
    if (held == null || held.id() != incoming.id()) {
      return incoming;
    }
    boolean back =
        jobProgress(held) % 3 == 2
            && jobProgress(incoming) % 3 < 2
            && incoming.restartCount() <= held.restartCount();
    return back ? held : incoming;
  }

  /** Restart count first, then 0 queued, 1 running or suspended, 2 anything else (ending, gone). */
  static long jobProgress(SlurmJobView j) {
    String st = j.state();
    int rank = st == null ? 0 : WAITING.contains(st) ? 0 : HOLDING.contains(st) ? 1 : 2;
    return j.restartCount() * 3L + rank;
  }
}
