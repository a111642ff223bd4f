package dev.tandem.workflows.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.temporal.api.enums.v1.EventType;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.CanceledFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link WaitTimers}: waits that signals end share one timer, and a wait still times out at its own
 * deadline, never before, exactly as a wait on a timer of its own does.
 */
class WaitTimersTest {
  private static final String QUEUE = "wait-timers-test";

  @WorkflowInterface
  public interface Loop {
    @WorkflowMethod
    List<String> run(boolean shared);

    @SignalMethod
    void poke();

    @SignalMethod
    void stop();

    @QueryMethod
    List<String> log();
  }

  /** A loop like a node's: each pass waits at most 5 s for news, and logs how the wait ended. */
  public static class LoopImpl implements Loop {
    private final List<String> log = new ArrayList<>();
    private int pokes;
    private boolean stopped;

    @Override
    public List<String> run(boolean shared) {
      WaitTimers waits = new WaitTimers();
      long start = Workflow.currentTimeMillis();
      int seen = 0;
      while (!stopped) {
        int before = seen;
        Duration upTo = Duration.ofSeconds(5);
        boolean met =
            shared
                ? waits.await(upTo, () -> stopped || pokes > before)
                : Scoped.await(upTo, () -> stopped || pokes > before); // the control: a timer each
        seen = pokes;
        log.add((met ? "news@" : "timeout@") + (Workflow.currentTimeMillis() - start));
      }
      return log;
    }

    @Override
    public void poke() {
      pokes++;
    }

    @Override
    public void stop() {
      stopped = true;
    }

    @Override
    public List<String> log() {
      return log;
    }
  }

  private TestWorkflowEnvironment env;
  private WorkflowClient client;

  @BeforeEach
  void start() {
    env = TestWorkflowEnvironment.newInstance();
    env.newWorker(QUEUE).registerWorkflowImplementationTypes(LoopImpl.class);
    env.start();
    client = env.getWorkflowClient();
  }

  @AfterEach
  void stop() {
    env.close();
  }

  /**
   * Four signals half a second into each second, then quiet: the shared timer of the first wait
   * serves all four, one more covers the rest of the last wait, and the timeouts come when a timer
   * of their own would have fired. Without sharing, the same waits start three timers more.
   */
  @Test
  void wakesEndedBySignalsShareATimerAndTimeoutsKeepTheirDeadline() {
    List<String> shared = pokeFourTimes("shared", true);
    List<String> own = pokeFourTimes("own", false);
    List<String> expected =
        List.of(
            "news@500",
            "news@1500",
            "news@2500",
            "news@3500",
            "timeout@8500",
            "timeout@13500",
            "timeout@18500",
            "news@20000");
    assertSameWaits(expected, own, "the control, each wait on its own timer");
    assertSameWaits(expected, shared, "shared timers end the waits at the same moments");
    assertEquals(5, timersStarted("shared"), "one for the four waits the signals ended, 4 after");
    assertEquals(8, timersStarted("own"), "one per wait");
  }

  /** A cancelled workflow ends in its wait with {@link CanceledFailure}, as {@link Scoped} does. */
  @Test
  void aCancelledWaitThrowsCanceledFailure() {
    Loop wf = stub("cancel");
    WorkflowClient.start(wf::run, true);
    wf.poke();
    env.sleep(Duration.ofSeconds(1));
    WorkflowStub stub = WorkflowStub.fromTyped(wf);
    stub.cancel();
    WorkflowFailedException e =
        assertThrows(WorkflowFailedException.class, () -> stub.getResult(List.class));
    assertInstanceOf(CanceledFailure.class, e.getCause());
  }

  /**
   * The same endings at the same moments, give or take 300 ms: the test server's clock also moves
   * in real time between its skips, by as long as a task takes to be picked up.
   */
  private static void assertSameWaits(List<String> expected, List<String> actual, String what) {
    assertEquals(expected.size(), actual.size(), what + ": " + actual);
    for (int i = 0; i < expected.size(); i++) {
      String[] e = expected.get(i).split("@");
      String[] a = actual.get(i).split("@");
      assertEquals(e[0], a[0], what + ": " + actual);
      long off = Math.abs(Long.parseLong(e[1]) - Long.parseLong(a[1]));
      assertTrue(off <= 300, what + ": " + actual);
    }
  }

  private List<String> pokeFourTimes(String id, boolean shared) {
    Loop wf = stub(id);
    WorkflowClient.start(wf::run, shared);
    env.sleep(Duration.ofMillis(500));
    for (int i = 0; i < 4; i++) {
      wf.poke();
      env.sleep(Duration.ofSeconds(1));
    }
    env.sleep(Duration.ofMillis(20_000 - 4_500));
    wf.stop();
    return WorkflowStub.fromTyped(wf).getResult(List.class);
  }

  private long timersStarted(String id) {
    return client.fetchHistory(id).getEvents().stream()
        .filter(e -> e.getEventType() == EventType.EVENT_TYPE_TIMER_STARTED)
        .count();
  }

  private Loop stub(String id) {
    return client.newWorkflowStub(
        Loop.class, WorkflowOptions.newBuilder().setWorkflowId(id).setTaskQueue(QUEUE).build());
  }
}
