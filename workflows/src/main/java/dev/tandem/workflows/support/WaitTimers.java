package dev.tandem.workflows.support;

import io.temporal.failure.CanceledFailure;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * A workflow loop's waits ("until a signal, or at most this long"), sharing their timers: a wait
 * whose deadline comes after a timer still running from an earlier wait waits on that timer instead
 * of starting one of its own.
 *
 * <p>Why: the Java SDK (1.38) leaves the timer of {@code Workflow.await(timeout, condition)}
 * running when the condition ends the wait, and when it fires it costs a workflow task that changes
 * nothing (and, on Temporal Cloud, a billed action for the timer). A node's rolling-update cycle
 * passes its loop six or seven times in a few seconds, each pass waiting at most 5 s: six timers,
 * five of them fired into nothing after the cycle. The NodeSet left one per pass in a rollout.
 * Cancelling the timer when the condition ends the wait would be cleaner, but the SDK's test
 * environment (every workflow unit test runs on it) refuses the cancel of a timer that fired while
 * the task ran (docs/benchmarks.md, "The status write off the loop").
 *
 * <p>The algorithm of {@link #await}:
 *
 * <ol>
 *   <li>The wait's deadline is now plus its timeout. Timers that have fired are forgotten.
 *   <li>If the deadline has come, the wait has timed out: return false.
 *   <li>Of the timers still running, take the one with the latest deadline not after the wait's. If
 *       there is none, start a timer for the rest of the wait (in a detached scope, like {@link
 *       Scoped#await}, so its state goes when it fires).
 *   <li>Wait until the condition holds, that timer fires, or the caller is cancelled (then cancel
 *       every running timer and throw {@link CanceledFailure}).
 *   <li>If the condition holds, return true; else (the timer fired) go back to 2. A shared timer
 *       that fires before the wait's deadline is followed by one for the rest.
 * </ol>
 *
 * <p>So a wait still ends at its deadline, never before, and a timer fires at most once into a wait
 * that then goes on: the task it costs is the one its stale fire cost before. A timer's deadline is
 * counted from the workflow task that started it, and the server starts it when that task
 * completes, so a wait on a shared timer may end later than asked by up to one task's run, as a
 * wait on its own timer does.
 */
public final class WaitTimers {
  private record Running(long deadline, Promise<Void> fired, CancellationScope scope) {}

  private final List<Running> running = new ArrayList<>();

  /**
   * Waits until {@code condition} holds or {@code timeout} has passed.
   *
   * @return true if the condition was met, false if the timeout passed
   * @throws CanceledFailure when the caller's scope is cancelled during the wait
   */
  public boolean await(Duration timeout, Supplier<Boolean> condition) {
    CancellationScope caller = CancellationScope.current();
    long deadline = Workflow.currentTimeMillis() + timeout.toMillis();
    while (true) {
      running.removeIf(r -> r.fired().isCompleted());
      long now = Workflow.currentTimeMillis();
      if (now >= deadline) {
        return false;
      }
      Running timer = latestBefore(deadline);
      if (timer == null) {
        timer = start(now, deadline);
      }
      Promise<Void> fired = timer.fired();
      Workflow.await(() -> caller.isCancelRequested() || condition.get() || fired.isCompleted());
      if (caller.isCancelRequested()) {
        running.forEach(r -> r.scope().cancel(caller.getCancellationReason()));
        running.clear();
        throw new CanceledFailure(caller.getCancellationReason());
      }
      if (condition.get()) {
        return true;
      }
    }
  }

  private Running latestBefore(long deadline) {
    Running best = null;
    for (Running r : running) {
      if (r.deadline() <= deadline && (best == null || r.deadline() > best.deadline())) {
        best = r;
      }
    }
    return best;
  }

  private Running start(long now, long deadline) {
    @SuppressWarnings("unchecked")
    Promise<Void>[] fired = new Promise[1];
    CancellationScope scope =
        Workflow.newDetachedCancellationScope(
            () -> fired[0] = Workflow.newTimer(Duration.ofMillis(deadline - now)));
    scope.run();
    Running r = new Running(deadline, fired[0], scope);
    running.add(r);
    return r;
  }
}
