package dev.tandem.workflows.node;

import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmNodeView;
import dev.tandem.workflows.model.Tuning;
import dev.tandem.workflows.support.Step;
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
 *       fleet that settled at once does not re-read at once.
 *   <li>News starts again at R: a pod or Slurm view that differs from the one the last pass ended
 *       with, whether a signal or a re-read brought it (a re-read's news means the watchers missed
 *       it: they are not healthy), and leaving rest. A signal that repeats what the workflow knows
 *       (the watchers resend every view on each informer resync) is not news: otherwise the resends
 *       would keep every node at the shortest waits.
 *   <li>Bound: a change whose signal is lost is re-read within T of happening (the wait in progress
 *       is at most T), and the waits after it are R again until a re-read finds the watchers right.
 *       The watchers repair their own failed deliveries much sooner (docs/architecture.md, "Safety
 *       re-reads at rest"): this re-read is the last resort, independent of their caches.
 *   <li>The re-read is due at a time, not after a wait: a pass woken by a signal that brought
 *       nothing new re-reads nothing and leaves the re-read where it was due. Signals that repeat
 *       what the node knows, arriving more often than the wait, would otherwise put the re-read off
 *       for ever and break the bound of step 4.
 * </ol>
 */
final class RestTimer {
  private final Tuning tuning;
  private boolean settled; // the last re-read at rest found nothing new
  private Object lastSeen; // what the last pass ended with
  private long dueAtMillis; // workflow time the next re-read at rest is due, or 0

  RestTimer(Tuning tuning) {
    this.tuning = tuning;
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
   * Records how the pass that just ran went (steps 2, 3 and 5).
   *
   * @param signalled the loop woke for a signal, not its timer
   * @param after {@link #seen} as the pass ended
   */
  void passed(boolean signalled, Object after) {
    boolean news = !after.equals(lastSeen);
    lastSeen = after;
    if (news) {
      settled = false;
      dueAtMillis = 0;
    } else if (!signalled) {
      settled = true; // a re-read that found nothing new
      dueAtMillis = 0;
    }
    // A signal that brought nothing new keeps the re-read where it was due (step 5).
  }

  /** The wait before the next pass: longer than the step asked only at rest (step 1). */
  long waitSeconds(Step<NodePhase> step, NodePhase phase) {
    boolean atRest =
        (phase == NodePhase.READY || phase == NodePhase.DRAINED)
            && step.next() == phase
            && step.waitSeconds() == tuning.resyncSeconds();
    if (!atRest) {
      settled = false;
      dueAtMillis = 0;
      return step.waitSeconds();
    }
    long wait =
        settled
            ? settledWait(tuning, Workflow.getInfo().getWorkflowId())
            : Math.min(tuning.restMaxSeconds(), tuning.resyncSeconds());
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
