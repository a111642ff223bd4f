package dev.tandem.workers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.uber.m3.tally.Scope;
import dev.tandem.watchers.WatcherMetrics;
import dev.tandem.workflows.remediation.RemediationMetrics;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityOptions;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * What {@code /metrics} serves: every {@code tandem_*} meter with HELP text, and the Temporal SDK's
 * meters trimmed (no per-type series, latency histograms only for the backlog) unless the full set
 * is asked for. The meters come from the real code: the watchers' metrics, the activity
 * interceptor, the workflows' metrics scope, and a Temporal worker running workflows and activities
 * of several types.
 */
class TandemMetricsTest {

  @WorkflowInterface
  public interface First {
    @WorkflowMethod
    String run(String what);
  }

  @WorkflowInterface
  public interface Second {
    @WorkflowMethod
    String run(String what);
  }

  @ActivityInterface
  public interface Steps {
    String stepOne(String what);

    String stepTwo(String what);
  }

  public static class FirstImpl implements First {
    @Override
    public String run(String what) {
      Steps s =
          Workflow.newActivityStub(
              Steps.class,
              ActivityOptions.newBuilder().setStartToCloseTimeout(Duration.ofSeconds(5)).build());
      // Every meter the workflows report, by the name the worker gives HELP for.
      Scope scope = Workflow.getMetricsScope();
      for (String name : RemediationMetrics.HELP.keySet()) {
        if (name.endsWith("_nodes")) {
          scope.gauge(name).update(1);
        } else if (name.endsWith("_service")) {
          scope.timer(name).record(com.uber.m3.util.Duration.ofSeconds(3));
        } else {
          scope.counter(name).inc(1);
        }
      }
      return s.stepOne(what) + s.stepTwo(what);
    }
  }

  public static class SecondImpl implements Second {
    @Override
    public String run(String what) {
      return Workflow.newActivityStub(
              Steps.class,
              ActivityOptions.newBuilder().setStartToCloseTimeout(Duration.ofSeconds(5)).build())
          .stepTwo(what);
    }
  }

  public static class StepsImpl implements Steps {
    @Override
    public String stepOne(String what) {
      return what;
    }

    @Override
    public String stepTwo(String what) {
      return what;
    }
  }

  /** A scrape after workflows of two types and activities of two types ran. */
  private static String scrape(boolean temporalFull) throws Exception {
    PrometheusMeterRegistry registry = TandemMetrics.registry(temporalFull);
    Scope scope = TemporalConnection.metricsScope(registry);
    TestWorkflowEnvironment env =
        TestWorkflowEnvironment.newInstance(
            TestEnvironmentOptions.newBuilder()
                .setMetricsScope(scope)
                .setWorkerFactoryOptions(
                    WorkerFactoryOptions.newBuilder()
                        .setWorkerInterceptors(new ActivityProgressInterceptor(registry))
                        .build())
                .build());
    try {
      Worker w = env.newWorker("q");
      w.registerWorkflowImplementationTypes(FirstImpl.class, SecondImpl.class);
      w.registerActivitiesImplementations(new StepsImpl());
      env.start();
      WorkflowOptions o = WorkflowOptions.newBuilder().setTaskQueue("q").build();
      for (int i = 0; i < 3; i++) {
        env.getWorkflowClient().newWorkflowStub(First.class, o).run("a");
        env.getWorkflowClient().newWorkflowStub(Second.class, o).run("b");
      }
      WatcherMetrics m = new WatcherMetrics(registry);
      m.event("pod", "updated");
      m.signal("nodeChanged", "sent");
      m.lag("pod", Duration.ofMillis(5));
      m.slurmPoll(Duration.ofMillis(5), "ok");
      m.leadershipAcquired();
      m.leadershipLost("lost");
      m.electionRestart("error");
      m.orphanJobCancelled("no-owner");
      m.error("slurm");
      m.coalesced("k");
    } finally {
      env.close();
      scope.close(); // flushes the SDK's and the workflows' meters into the registry
    }
    return registry.scrape();
  }

  /** HELP text per metric family, from a Prometheus text scrape. */
  private static Map<String, String> help(String scrape) {
    Map<String, String> out = new java.util.TreeMap<>();
    for (String line : scrape.split("\n")) {
      if (line.startsWith("# HELP ")) {
        String rest = line.substring("# HELP ".length());
        int sp = rest.indexOf(' ');
        out.put(sp < 0 ? rest : rest.substring(0, sp), sp < 0 ? "" : rest.substring(sp + 1).trim());
      }
    }
    return out;
  }

  @Test
  void everyTandemMetricHasHelp() throws Exception {
    Map<String, String> help = help(scrape(false));
    List<String> empty = new ArrayList<>();
    int tandem = 0;
    for (Map.Entry<String, String> e : help.entrySet()) {
      if (e.getKey().startsWith("tandem_")) {
        tandem++;
        if (e.getValue().isEmpty()) {
          empty.add(e.getKey());
        }
      }
    }
    assertEquals(List.of(), empty, "tandem_* metrics without HELP");
    // The watchers', the interceptor's and the workflows' meters were all there.
    for (String family :
        List.of(
            "tandem_slurm_up",
            "tandem_slurm_draining_nodes",
            "tandem_activity_started_total",
            "tandem_remediations_started_total",
            "tandem_remediation_return_to_service_seconds",
            "tandem_remediation_waiting_nodes")) {
      assertTrue(help.containsKey(family), family + " in " + help.keySet());
    }
    assertTrue(tandem >= 20, "tandem families: " + tandem);
  }

  @Test
  void temporalMetricsAreTrimmedUnlessTheFullSetIsAskedFor() throws Exception {
    String trimmed = scrape(false);
    String full = scrape(true);
    TreeSet<String> bucketed = new TreeSet<>();
    for (String line : trimmed.split("\n")) {
      if (line.startsWith("temporal_")) {
        if (line.contains("_latency_seconds")) {
          assertFalse(line.contains("workflow_type=") || line.contains("activity_type="), line);
        }
        if (line.contains("_bucket{")) {
          bucketed.add(line.substring(0, line.indexOf("_bucket{")));
        }
      }
    }
    assertTrue(
        TandemMetrics.HISTOGRAMS.stream()
            .map(n -> n.replace("_latency", "_latency_seconds"))
            .toList()
            .containsAll(bucketed),
        "histograms: " + bucketed);
    assertTrue(
        full.contains("temporal_workflow_endtoend_latency_seconds_count{")
            && full.contains("workflow_type=\"First\""),
        "the full set keeps the types");
    assertTrue(full.contains("temporal_request_latency_seconds_bucket"), "and every histogram");
    assertTrue(
        trimmed.length() * 3 < full.length(),
        "trimmed " + trimmed.length() + " bytes, full " + full.length());
  }
}
