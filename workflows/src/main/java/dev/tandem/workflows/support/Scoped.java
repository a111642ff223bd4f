package dev.tandem.workflows.support;

import io.temporal.failure.CanceledFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Functions;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * Runs a long-lived workflow's calls, waits and side threads each in a cancellation scope of its
 * own, so that what the SDK keeps for one of them is freed when it ends, not when the run ends.
 *
 * <p>Why: the Java SDK (checked in 1.38) ties every activity, local activity, timer, external
 * signal and workflow thread to the cancellation scope it starts in, by a handler on that scope's
 * cancellation promise. The workflow's root scope is never cancelled, so its promise keeps every
 * handler of the run, and each handler keeps its call's state machine, arguments and result. A node
 * workflow makes a few calls per pass and continues as new only after thousands of events: in
 * {@code tandem bench fleet} at 1,000 nodes these leftovers were most of the worker's heap (about
 * 38 finished local activities and 270 promises per node workflow after a rollout; the figures are
 * in docs/benchmarks.md). A detached scope is referenced by nobody once it has run, so its handlers
 * go with it. Nothing here changes a command, its order or its arguments: histories replay the
 * same.
 *
 * <p>Cancellation: a detached scope does not hear the workflow's cancellation. A call is short (a
 * few seconds of local attempts, then at most the regular activity's retry window), so a
 * cancellation takes effect at the next wait: {@link #await} watches the caller's scope and, when
 * it is cancelled, cancels its timer and throws {@link CanceledFailure}, as a wait in the root
 * scope does.
 */
public final class Scoped {
  private Scoped() {}

  /** Runs {@code f} (activities, local activities) in a detached scope of its own. */
  public static <T> T call(Supplier<T> f) {
    Object[] out = new Object[1];
    Workflow.newDetachedCancellationScope(() -> out[0] = f.get()).run();
    @SuppressWarnings("unchecked")
    T v = (T) out[0];
    return v;
  }

  /** {@code Async.function(f, a1, a2)} in a detached scope: the new thread's scope hangs off it. */
  public static <A1, A2, R> Promise<R> async(Functions.Func2<A1, A2, R> f, A1 a1, A2 a2) {
    return call(() -> Async.function(f, a1, a2));
  }

  /**
   * {@code Workflow.await(timeout, condition)} with its timer in a detached scope. A condition that
   * holds when the wait ends is "met" even if the timer fired too: the SDK answers "timed out"
   * whenever its timer has fired by the time the workflow task runs, so a task that started late (a
   * busy worker, a backlog on the task queue) would take a signal that came first for a silent
   * timeout. {@link WaitTimers} answers this way too.
   *
   * @return true if the condition holds, false if the timeout passed without it
   * @throws CanceledFailure when the caller's scope is cancelled during the wait
   */
  public static boolean await(Duration timeout, Supplier<Boolean> condition) {
    CancellationScope caller = CancellationScope.current();
    boolean[] met = new boolean[1];
    CancellationScope scope =
        Workflow.newDetachedCancellationScope(
            () ->
                met[0] =
                    Workflow.await(timeout, () -> caller.isCancelRequested() || condition.get()));
    scope.run();
    if (caller.isCancelRequested()) {
      scope.cancel(caller.getCancellationReason()); // the timer, as the root scope would
      throw new CanceledFailure(caller.getCancellationReason());
    }
    return met[0] || condition.get();
  }
}
