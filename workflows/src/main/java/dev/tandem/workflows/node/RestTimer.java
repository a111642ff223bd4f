package dev.tandem.workflows.node;

import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmNodeView;
import dev.tandem.workflows.model.Tuning;
import dev.tandem.workflows.support.Versions;
import java.util.List;
import java.util.Objects;

/**
 * How long a node at rest waits for a signal before its safety re-read, so that an idle, healthy
 * fleet does not cost two activity calls per node every {@code resyncSeconds} (issue 14;
 * docs/architecture.md, "Safety re-reads at rest").
 *
 * <ol>
 *   <li>At rest means ready or drained, staying there, with the resync wait: the watchers report
 *       every change of the pod and the Slurm node, and the timer only repairs a lost signal.
 *   <li>The first wait at rest is {@code resyncSeconds} (R). Each timer-driven re-read at rest that
 *       finds the pod and the Slurm node as the signals left them doubles the next wait, up to
 *       {@code restMaxSeconds} (T, by default 8 × R).
 *   <li>Any signal, a re-read that finds something no signal reported (the watchers missed it: they
 *       are not healthy), or leaving rest starts again at R.
 *   <li>Bound: a change whose signal is lost is re-read within T of happening (the wait in progress
 *       is at most T), and the waits after it are R again until the watchers are quiet and right
 *       for a while.
 * </ol>
 *
 * A workflow decision: taken only by runs that started with {@link Versions#REST_BACKOFF}; older
 * runs wait R as before.
 */
final class RestTimer {
  private static final int MAX_DOUBLINGS = 20; // R << 20 exceeds any sane T: no overflow

  private final Tuning tuning;
  private final boolean on;
  private int quiet; // timer-driven re-reads at rest in a row that found no news

  RestTimer(Tuning tuning) {
    this.tuning = tuning;
    this.on = Versions.of(Versions.REST_BACKOFF) >= 1;
  }

  /** What the re-read compares: the fields a watcher's signal would have carried. */
  static Object seen(PodView pod, SlurmNodeView node) {
    Object slurm =
        node == null
            ? null
            : List.of(
                node.known(),
                Objects.toString(node.state(), ""),
                node.flags(),
                Objects.toString(node.reason(), ""),
                Objects.toString(node.slurmdStartTime(), ""));
    return java.util.Arrays.asList(pod, slurm);
  }

  /**
   * Records how the pass that just ran went (steps 2 and 3).
   *
   * @param signalled the loop woke for a signal, not its timer
   * @param news the pass's re-read changed what the workflow knew of the pod or Slurm node
   */
  void passed(boolean signalled, boolean news) {
    if (signalled || news) {
      quiet = 0;
    } else {
      quiet = Math.min(quiet + 1, MAX_DOUBLINGS);
    }
  }

  /** The wait before the next pass: longer than the step asked only at rest (step 1). */
  long waitSeconds(Step step, NodePhase phase) {
    boolean atRest =
        (phase == NodePhase.READY || phase == NodePhase.DRAINED)
            && step.next() == phase
            && step.waitSeconds() == tuning.resyncSeconds();
    if (!on || !atRest) {
      quiet = 0;
      return step.waitSeconds();
    }
    return Math.min(tuning.restMaxSeconds(), tuning.resyncSeconds() << quiet);
  }
}
