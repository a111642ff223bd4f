package dev.tandem.workers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityOptions;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.RetryOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ActivityProgressInterceptorTest {
  @ActivityInterface
  public interface Steps {
    String step(String what);
  }

  public static final class StepsImpl implements Steps {
    @Override
    public String step(String what) {
      if (what.equals("fail")) {
        throw new IllegalStateException("asked to fail");
      }
      return what;
    }
  }

  @WorkflowInterface
  public interface Run {
    @WorkflowMethod
    String run(String what);
  }

  public static final class RunImpl implements Run {
    private final Steps steps =
        Workflow.newActivityStub(
            Steps.class,
            ActivityOptions.newBuilder()
                .setStartToCloseTimeout(Duration.ofSeconds(10))
                .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(2).build())
                .build());

    @Override
    public String run(String what) {
      return steps.step(what) + steps.step(what);
    }
  }

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private TestWorkflowEnvironment env;
  private WorkflowClient client;

  @BeforeEach
  void start() {
    env =
        TestWorkflowEnvironment.newInstance(
            io.temporal.testing.TestEnvironmentOptions.newBuilder()
                .setWorkerFactoryOptions(
                    WorkerFactoryOptions.newBuilder()
                        .setWorkerInterceptors(new ActivityProgressInterceptor(registry))
                        .build())
                .build());
    Worker w = env.newWorker("q");
    w.registerWorkflowImplementationTypes(RunImpl.class);
    w.registerActivitiesImplementations(new StepsImpl());
    env.start();
    client = env.getWorkflowClient();
  }

  @AfterEach
  void stop() {
    env.close();
  }

  private Run stub() {
    return client.newWorkflowStub(
        Run.class, WorkflowOptions.newBuilder().setTaskQueue("q").build());
  }

  /** The value of one series in a scrape, 0 when absent. */
  private double value(String series) {
    for (String line : registry.scrape().split("\n")) {
      if (line.startsWith(series + " ")) {
        return Double.parseDouble(line.substring(series.length() + 1).trim());
      }
    }
    return 0;
  }

  @Test
  void countsEveryAttemptAndItsOutcomeInTheNextScrape() {
    assertEquals("okok", stub().run("ok"));
    assertEquals(2, value("tandem_activity_started_total{activity=\"Step\"}"));
    assertEquals(
        2, value("tandem_activity_finished_total{activity=\"Step\",outcome=\"completed\"}"));

    assertThrows(WorkflowFailedException.class, () -> stub().run("fail"));
    // Two attempts of the failing activity, then the workflow fails.
    assertEquals(4, value("tandem_activity_started_total{activity=\"Step\"}"));
    assertEquals(2, value("tandem_activity_finished_total{activity=\"Step\",outcome=\"failed\"}"));
    assertTrue(registry.scrape().contains("# HELP tandem_activity_started_total"));
  }
}
