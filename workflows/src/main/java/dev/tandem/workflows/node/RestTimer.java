package dev.tandem.workflows.node;

import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmNodeView;
import dev.tandem.workflows.model.Tuning;
import dev.tandem.workflows.support.Versions;
import io.temporal.workflow.Workflow;
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
 *   <li>The first wait at rest is {@code resyncSeconds} (R). A timer-driven re-read at rest that
 *       finds the pod and the Slurm node as the signals left them shows that the watchers report
 *       this node: the next wait is the longest, {@code restMaxSeconds} (T, 12 hours by default),
 *       shortened by up to a quarter by a fraction fixed per node (its workflow id), so that a
 *       fleet that settled at once does not re-read at once ({@link Versions#REST_SETTLED}). Before
 *       it, each such re-read doubled the wait up to T: a fleet's cost at rest then fell only as 1
 *       / the time since its last change, and at 5,000 nodes the waits of 2, 4, 8, ... minutes were
 *       most of the worker's work for hours after a rollout.
 *   <li>News starts again at R: a pod or Slurm view that differs from the one the last pass ended
 *       with, whether a signal or a re-read brought it (a re-read's news means the watchers missed
 *       it: they are not healthy), and leaving rest. A signal that repeats what the workflow knows
 *       (the watchers resend every view on each informer resync) is not news ({@link
 *       Versions#REST_NEWS}); before it, any signal started again at R, and the resends kept every
 *       node at the shortest waits.
 *   <li>Bound: a change whose signal is lost is re-read within T of happening (the wait in progress
 *       is at most T), and the waits after it are R again until a re-read finds the watchers right.
 *       The watchers repair their own failed deliveries much sooner (docs/architecture.md, "Safety
 *       re-reads at rest"): this re-read is the last resort, independent of their caches.
 *   <li>The re-read is due at a time, not after a wait: a pass woken by a signal that brought
 *       nothing new re-reads nothing and leaves the re-read where it was due ({@link
 *       Versions#REST_NEWS}). Signals that repeat what the node knows, arriving more often than the
 *       wait, would otherwise put the re-read off for ever and break the bound of step 4.
 * </ol>
 *
 * A workflow decision: taken only by runs that started with {@link Versions#REST_BACKOFF}; older
 * runs wait R as before. Runs before {@link Versions#REST_SETTLED} double the wait (step 2).
 */
final class RestTimer {
  private static final int MAX_DOUBLINGS = 20; // R << 20 exceeds any sane T: no overflow

  private final Tuning tuning;
  private final boolean on;
  private final boolean newsOnly;
  private final boolean settled;
  private int quiet; // passes at rest in a row that brought no news
  private Object lastSeen; // what the last pass ended with (REST_NEWS)
  private long dueAtMillis; // workflow time the next re-read at rest is due, or 0 (REST_NEWS)

  RestTimer(Tuning tuning) {
    this.tuning = tuning;
    this.on = Versions.of(Versions.REST_BACKOFF) >= 1;
    this.newsOnly = on && Versions.of(Versions.REST_NEWS) >= 1;
    this.settled = newsOnly && Versions.of(Versions.REST_SETTLED) >= 1;
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
   * @param before {@link #seen} as the pass began (after the signals that woke it)
   * @param after {@link #seen} as the pass ended
   */
  void passed(boolean signalled, Object before, Object after) {
    if (newsOnly) {
      boolean news = !after.equals(lastSeen);
      lastSeen = after;
      if (news) {
        quiet = 0;
        dueAtMillis = 0;
      } else if (!signalled) {
        quiet = Math.min(quiet + 1, MAX_DOUBLINGS); // a re-read that found nothing new
        dueAtMillis = 0;
      }
      // A signal that brought nothing new keeps the re-read where it was due (step 5).
      return;
    }
    if (signalled || !before.equals(after)) {
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
      dueAtMillis = 0;
      return step.waitSeconds();
    }
    long wait =
        settled && quiet > 0
            ? settledWait(tuning, Workflow.getInfo().getWorkflowId())
            : Math.min(tuning.restMaxSeconds(), tuning.resyncSeconds() << quiet);
    if (!newsOnly) {
      return wait;
    }
    long now = Workflow.currentTimeMillis();
    if (dueAtMillis == 0) {
      dueAtMillis = now + wait * 1000L;
    }
    return Math.max(1, (dueAtMillis - now + 999) / 1000);
  }

  /**
   * The wait of a settled node (step 2): T less up to a quarter of it, by a fraction that the
   * workflow id fixes (the same on every replay and for every wait of this node), never below R.
   */
  static long settledWait(Tuning tuning, String workflowId) {
    long max = tuning.restMaxSeconds();
    long spread = max / 4 * Math.floorMod(workflowId.hashCode(), 1000) / 1000;
    return Math.max(tuning.resyncSeconds(), max - spread);
  }
}
