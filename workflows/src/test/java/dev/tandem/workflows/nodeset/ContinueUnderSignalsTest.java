package dev.tandem.workflows.nodeset;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.Tuning;
import dev.tandem.workflows.testing.WorkflowTestBase;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.WorkflowTaskFailedCause;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowNotFoundException;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A NodeSet continues as new while signals keep arriving: the server refuses a task that continues
 * as new if a signal arrived while it ran, and the retry replays the whole history, a task long
 * enough to be refused again. After a refusal the NodeSet continues as new from the short task
 * after the retry instead.
 */
class ContinueUnderSignalsTest extends WorkflowTestBase {
  /** Continue-as-new after 200 events (the minimum). */
  private static final Tuning SHORT_HISTORY = new Tuning(1, 10, 200, 200, 120, true);

  private static final int SENDERS = 2;

  /** Each sender's pause between signals: 2 × 200 a second, as many reports as a big rollout. */
  private static final long PAUSE_MILLIS = 5;

  private static final int MOST_SIGNALS = 8_000;
  private static final long MOST_MILLIS = 10_000;

  @Test
  void aNodeSetContinuesAsNewUnderAStreamOfSignals() throws Exception {
    NodeSetWorkflow wf = startNodeSet("flood", spec(1, 2, "a"), SHORT_HISTORY);
    await("2 ready", 120, () -> allReady(wf, 2));
    String id = Names.nodeSetWorkflowId(NS, "flood");
    String firstRun = client.newUntypedWorkflowStub(id).describe().getExecution().getRunId();

    // Signals from two threads until the first run has continued as new or the bounds are reached.
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger sent = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(SENDERS);
    long start = System.nanoTime();
    Future<?>[] senders = new Future<?>[SENDERS];
    for (int i = 0; i < SENDERS; i++) {
      senders[i] =
          pool.submit(
              () -> {
                NodeSetWorkflow stub = client.newWorkflowStub(NodeSetWorkflow.class, id);
                while (!stop.get()
                    && sent.incrementAndGet() <= MOST_SIGNALS
                    && System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(MOST_MILLIS)) {
                  try {
                    stub.resync();
                  } catch (WorkflowNotFoundException e) {
                    // The test server has no run for a moment while one continues as new.
                  }
                  sleep(PAUSE_MILLIS);
                }
              });
    }
    int runs = 0;
    long continuedAfter = -1;
    while (System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(MOST_MILLIS + 5_000)) {
      List<HistoryEvent> events = client.fetchHistory(id, firstRun).getEvents();
      HistoryEvent last = events.get(events.size() - 1);
      if (last.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW) {
        continuedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        break;
      }
      sleep(50);
    }
    boolean flooding = sent.get() < MOST_SIGNALS && !senders[0].isDone();
    stop.set(true);
    for (Future<?> f : senders) {
      f.get(30, TimeUnit.SECONDS);
    }
    pool.shutdown();

    List<HistoryEvent> events = client.fetchHistory(id, firstRun).getEvents();
    long refused =
        events.stream()
            .filter(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED)
            .filter(
                e ->
                    e.getWorkflowTaskFailedEventAttributes().getCause()
                        == WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND)
            .count();
    System.out.printf(
        "ContinueUnderSignalsTest: continued after %d ms, %d signals sent, %d refusals, %d events%n",
        continuedAfter, sent.get(), refused, events.size());
    assertTrue(
        continuedAfter >= 0 && flooding,
        "the first run continued as new while the signals still came: after "
            + continuedAfter
            + " ms, "
            + refused
            + " refusals");
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
