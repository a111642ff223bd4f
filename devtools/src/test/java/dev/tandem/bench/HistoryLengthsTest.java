package dev.tandem.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The largest history a benchmark saw, across samples and across continue-as-new. */
class HistoryLengthsTest {
  @WorkflowInterface
  public interface Pinged {
    @WorkflowMethod
    void run(int pings);

    @SignalMethod
    void ping();
  }

  /** Continues as new after 20 pings. */
  public static class PingedImpl implements Pinged {
    private int pings;

    @Override
    public void run(int carried) {
      Workflow.await(() -> pings >= 20);
      Workflow.newContinueAsNewStub(Pinged.class).run(0);
    }

    @Override
    public void ping() {
      pings++;
    }
  }

  private TestWorkflowEnvironment env;
  private WorkflowClient client;

  @BeforeEach
  void setUp() {
    env = TestWorkflowEnvironment.newInstance();
    Worker w = env.newWorker("q");
    w.registerWorkflowImplementationTypes(PingedImpl.class);
    env.start();
    client = env.getWorkflowClient();
  }

  @AfterEach
  void tearDown() {
    env.close();
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void keepsTheLargestSeenEvenAfterTheHistoryShrinks() {
    Pinged a =
        client.newWorkflowStub(
            Pinged.class,
            WorkflowOptions.newBuilder().setWorkflowId("a").setTaskQueue("q").build());
    WorkflowClient.start(a::run, 0);
    HistoryLengths h = new HistoryLengths(client);
    assertEquals(0, h.sample(List.of("missing")).events(), "an unknown workflow is skipped");
    for (int i = 0; i < 15; i++) {
      a.ping();
    }
    long before = 0;
    long seen = 0; // the largest of every sample this test took
    for (int i = 0; i < 100 && before < 15; i++) { // buffered signals join after a workflow task
      before = h.sample(List.of("a", "missing")).events();
      seen = Math.max(seen, before);
      sleep(50);
    }
    assertTrue(before >= 15, "15 signals at least: " + before);
    for (int i = 0; i < 10; i++) {
      a.ping(); // past 20: continued as new, a short history again
    }
    long after = Long.MAX_VALUE;
    for (int i = 0; i < 100 && after >= before; i++) {
      sleep(50);
      after = h.sample(List.of("a")).events();
      // A sample may catch the first run with the later pings, before it continues as new.
      seen = Math.max(seen, after);
    }
    assertTrue(after < before, after + " after continue-as-new, " + before + " before");
    assertEquals(seen, h.largest().events());
    assertEquals("a", h.largest().workflowId());
  }
}
