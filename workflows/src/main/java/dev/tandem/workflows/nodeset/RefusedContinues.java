package dev.tandem.workflows.nodeset;

import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Continue-as-new again, soon, after the server refused it.
 *
 * <p>Why: a NodeSet in a rollout takes dozens of node reports a second. The server refuses a task
 * that continues as new if a signal arrived while the task ran ({@code UnhandledCommand}; by
 * design, so no signal is lost: temporalio/temporal#1289). The worker then drops the workflow from
 * its cache, and the retry replays the whole history (8,000 events at 1,000 nodes: 2–4 s on two
 * busy cores). Reports keep arriving during a task that long, so the retry, which continues as new
 * again, is refused again: in {@code tandem bench fleet} three refusals in a row held a rollout for
 * 7.8 s with no node told to update.
 *
 * <ol>
 *   <li>Just before it continues as new, the NodeSet asks this worker whether it has been here in
 *       this run before. It can only have been if the server refused the attempt: an accepted one
 *       ends the run. The answer is a side effect, recorded in the history, so a replay takes the
 *       same path.
 *   <li>If it has (the attempt was refused and this task is the long retry), it does not continue
 *       as new in this task. It sleeps 1 ms instead, which ends the task: its commands (the side
 *       effect and the timer) are not a completion, so the server takes them however many reports
 *       came.
 *   <li>The timer's task is short (the cache is warm again) and asks once more: now the worker
 *       answers "not after a refusal", and the NodeSet continues as new from a task of a few
 *       milliseconds, which a report rarely falls into. If it does, the next retry goes back to 2.
 * </ol>
 *
 * <p>The memory is the worker's (the runs it saw attempt, at most {@link #REMEMBERED}). A retry on
 * another worker, or after a restart, finds nothing and continues as new at once.
 */
final class RefusedContinues {
  private RefusedContinues() {}

  static final int REMEMBERED = 1024;

  /**
   * Run id → true: continued as new last time here; false: deferred last time here. Shared by the
   * worker's workflow threads. A retry follows its refusal within seconds, so when the map is full
   * any entries may go: the worst a lost one costs is one retry continuing as new at once.
   */
  private static final Map<String, Boolean> ATTEMPTED = new ConcurrentHashMap<>();

  /** Returns once this task may continue as new: at once, or after a 1 ms sleep after a refusal. */
  static void awaitShortTask() {
    String run = Workflow.getInfo().getRunId();
    while (Workflow.sideEffect(Boolean.class, () -> refusedBefore(run))) {
      Workflow.sleep(Duration.ofMillis(1));
    }
  }

  /** Whether this worker saw this run attempt to continue as new last time it was here. */
  static boolean refusedBefore(String run) {
    boolean[] refused = new boolean[1];
    ATTEMPTED.compute(
        run,
        (k, attempted) -> {
          refused[0] = Boolean.TRUE.equals(attempted);
          return !refused[0];
        });
    if (ATTEMPTED.size() > REMEMBERED) {
      ATTEMPTED.keySet().removeIf(k -> !k.equals(run));
    }
    return refused[0];
  }
}
