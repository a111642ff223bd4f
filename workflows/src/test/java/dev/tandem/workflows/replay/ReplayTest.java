package dev.tandem.workflows.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.node.NodeLifecycleWorkflowImpl;
import dev.tandem.workflows.nodeset.NodeSetWorkflowImpl;
import dev.tandem.workflows.remediation.RemediationBudgetWorkflowImpl;
import dev.tandem.workflows.remediation.RemediationWorkflowImpl;
import dev.tandem.workflows.schedule.PodGroupWorkflowImpl;
import dev.tandem.workflows.schedule.PodScheduleWorkflowImpl;
import io.temporal.internal.common.WorkflowExecutionHistory;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactoryOptions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Replays the baseline histories of the latest release (listed in {@code histories/index.txt},
 * recorded from that release's code by the {@code Record*HistoriesTest} classes) with today's code.
 * A change that alters their commands (a reordered or added activity, a removed timer, another
 * signal) fails here with a non-determinism error, because a workflow started on the release would
 * fail the same way after an upgrade. The types of the activities and local activities the replay
 * asks for must also be those the history recorded, in order ({@link ReplayedCalls}), which the SDK
 * does not check for local activities. Before a release, re-record the baseline from the code being
 * released; after one, make the change safe for running workflows instead (docs/upgrading.md).
 */
class ReplayTest {

  static Stream<String> histories() throws IOException {
    List<String> names = new ArrayList<>();
    try (InputStream in = ReplayTest.class.getResourceAsStream("/histories/index.txt")) {
      if (in != null) {
        for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
          if (!line.isBlank() && !line.startsWith("#")) {
            names.add(line.trim());
          }
        }
      }
    }
    assertFalse(names.isEmpty(), "histories/index.txt lists no histories");
    return names.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("histories")
  void replaysWithoutNonDeterminism(String file) throws Exception {
    String json;
    try (InputStream in = ReplayTest.class.getResourceAsStream("/histories/" + file)) {
      if (in == null) {
        throw new IllegalStateException("missing history " + file);
      }
      json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    WorkflowExecutionHistory history = WorkflowExecutionHistory.fromJson(json);
    ReplayedCalls calls = new ReplayedCalls();
    try (TestWorkflowEnvironment env =
        TestWorkflowEnvironment.newInstance(
            TestEnvironmentOptions.newBuilder()
                .setWorkerFactoryOptions(
                    WorkerFactoryOptions.newBuilder().setWorkerInterceptors(calls).build())
                .build())) {
      Worker worker = env.newWorker("replay");
      worker.registerWorkflowImplementationTypes(
          NodeLifecycleWorkflowImpl.class,
          NodeSetWorkflowImpl.class,
          PodScheduleWorkflowImpl.class,
          PodGroupWorkflowImpl.class,
          RemediationWorkflowImpl.class,
          RemediationBudgetWorkflowImpl.class);
      WorkflowReplayer.replayWorkflowExecution(history, worker);
    } catch (Exception e) {
      throw new AssertionError(file + " does not replay: " + e.getMessage(), e);
    }
    List<String> recorded = ReplayedCalls.recorded(history.getEvents());
    List<String> asked = calls.asked();
    assertTrue(
        asked.size() >= recorded.size(),
        file + ": the replay asked for fewer calls than the history recorded: " + asked);
    assertEquals(
        recorded,
        asked.subList(0, recorded.size()),
        file + " does not replay: its activities and local activities, in order");
  }
}
