package dev.tandem.workflows.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.LocalActivityOptions;
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
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the SDK keeps of a workflow's finished calls while the workflow stays cached: with {@link
 * Scoped}, nothing; in the root scope, every local activity's and timer's state machine until the
 * run ends. Counted with the JVM's class histogram (a full GC first, so only live objects count).
 */
class ScopedTest {
  private static final String QUEUE = "scoped-test";
  private static final int CALLS = 300;

  @WorkflowInterface
  public interface Calls {
    @WorkflowMethod
    String run(int n, boolean scoped);

    @SignalMethod
    void done();

    @QueryMethod
    int made();
  }

  @ActivityInterface
  public interface Echo {
    String echo(String s);
  }

  public static class EchoImpl implements Echo {
    @Override
    public String echo(String s) {
      return s;
    }
  }

  public static class CallsImpl implements Calls {
    private boolean done;
    private int made;

    @Override
    public String run(int n, boolean scoped) {
      Echo e =
          Workflow.newLocalActivityStub(
              Echo.class,
              LocalActivityOptions.newBuilder()
                  .setStartToCloseTimeout(Duration.ofSeconds(5))
                  .build());
      for (int i = 0; i < n; i++) {
        String x = "call " + i;
        if (scoped) {
          assertEquals(x, Scoped.call(() -> e.echo(x)));
          Scoped.await(Duration.ofMillis(10), () -> false);
        } else {
          e.echo(x);
          Workflow.await(Duration.ofMillis(10), () -> false);
        }
        made++;
      }
      Scoped.await(Duration.ofHours(1), () -> done);
      return "done";
    }

    @Override
    public void done() {
      done = true;
    }

    @Override
    public int made() {
      return made;
    }
  }

  private TestWorkflowEnvironment env;
  private WorkflowClient client;

  @BeforeEach
  void start() {
    env = TestWorkflowEnvironment.newInstance();
    var worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(CallsImpl.class);
    worker.registerActivitiesImplementations(new EchoImpl());
    env.start();
    client = env.getWorkflowClient();
  }

  @AfterEach
  void stop() {
    env.close();
  }

  @Test
  void scopedCallsAndWaitsLeaveNothingBehind() throws Exception {
    long[] grown = afterCalls("scoped", true);
    assertTrue(grown[0] < CALLS / 10, "local activity state machines kept: " + grown[0]);
    assertTrue(grown[1] < CALLS / 10, "timer state machines kept: " + grown[1]);
  }

  /** The control: without Scoped the same workflow keeps one of each per call (SDK 1.38). */
  @Test
  void callsInTheRootScopeAreKeptUntilTheRunEnds() throws Exception {
    long[] grown = afterCalls("root", false);
    assertTrue(grown[0] >= CALLS, "local activity state machines kept: " + grown[0]);
    assertTrue(grown[1] >= CALLS, "timer state machines kept: " + grown[1]);
  }

  /**
   * A cancellation ends the wait with {@link CanceledFailure}, and so the workflow, as cancelled
   * (without the check the hour would pass, time skipped, and the workflow return "done").
   */
  @Test
  void aCancelledWaitThrowsCanceledFailure() {
    Calls wf = stub("cancel");
    WorkflowClient.start(wf::run, 1, true);
    awaitMade(wf, 1);
    WorkflowStub stub = WorkflowStub.fromTyped(wf);
    stub.cancel();
    WorkflowFailedException e =
        assertThrows(WorkflowFailedException.class, () -> stub.getResult(String.class));
    assertInstanceOf(CanceledFailure.class, e.getCause());
  }

  private long[] afterCalls(String id, boolean scoped) throws Exception {
    long laBefore = live("io.temporal.internal.statemachines.LocalActivityStateMachine");
    long timersBefore = live("io.temporal.internal.statemachines.TimerStateMachine");
    Calls wf = stub(id);
    CompletableFuture<String> result = WorkflowClient.execute(wf::run, CALLS, scoped);
    awaitMade(wf, CALLS);
    long[] grown = {
      live("io.temporal.internal.statemachines.LocalActivityStateMachine") - laBefore,
      live("io.temporal.internal.statemachines.TimerStateMachine") - timersBefore
    };
    System.out.printf(
        "ScopedTest %s: %d local activity and %d timer state machines kept after %d calls%n",
        id, grown[0], grown[1], CALLS);
    wf.done();
    assertEquals("done", result.get());
    return grown;
  }

  private Calls stub(String id) {
    return client.newWorkflowStub(
        Calls.class, WorkflowOptions.newBuilder().setWorkflowId(id).setTaskQueue(QUEUE).build());
  }

  private static void awaitMade(Calls wf, int n) {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (wf.made() < n) {
      assertTrue(System.nanoTime() < deadline, "the workflow made " + wf.made() + " of " + n);
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }

  /** Live instances of a class, from the JVM's class histogram (which runs a full GC first). */
  private static long live(String className) throws Exception {
    String histogram =
        (String)
            ManagementFactory.getPlatformMBeanServer()
                .invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"),
                    "gcClassHistogram",
                    new Object[] {new String[0]},
                    new String[] {String[].class.getName()});
    for (String line : histogram.split("\n")) {
      String[] f = line.trim().split("\\s+");
      if (f.length >= 4 && f[3].equals(className)) {
        return Long.parseLong(f[1]);
      }
    }
    return 0;
  }
}
