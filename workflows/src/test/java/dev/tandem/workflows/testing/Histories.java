package dev.tandem.workflows.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The one place that writes workflow histories for {@code ReplayTest}. Histories are recorded only
 * on request, from the {@code workflows} module:
 *
 * <pre>./mvnw -o -B -pl workflows test -Dtest='Record*HistoriesTest' -Dtandem.recordHistories=0.1.0
 * </pre>
 *
 * The value is the file suffix ({@code <scenario>-0.1.0.json}: recorded from release 0.1.0's code);
 * the new files are then listed in {@code histories/index.txt}.
 */
public final class Histories {
  /** The tag of this run's recordings; empty when nothing is recorded. */
  public static final String TAG = System.getProperty("tandem.recordHistories", "");

  private static final Path DIR = Path.of("src/test/resources/histories");

  private Histories() {}

  /** Whether this run records histories. */
  public static boolean recording() {
    return !TAG.isEmpty();
  }

  /** Skips a test that only records (JUnit's assumption) unless this run records. */
  public static void assumeRecording() {
    assumeTrue(recording(), "set -Dtandem.recordHistories=<tag> to record");
  }

  /**
   * When {@link #recording}, writes the history of {@code workflowId} (run {@code runId}, or its
   * latest run when null) to {@code src/test/resources/histories/<name>-<tag>.json}.
   */
  public static void record(WorkflowClient client, String name, String workflowId, String runId) {
    if (!recording()) {
      return;
    }
    String json =
        (runId == null ? client.fetchHistory(workflowId) : client.fetchHistory(workflowId, runId))
            .toJson(false);
    try {
      Files.createDirectories(DIR);
      Files.writeString(DIR.resolve(name + "-" + TAG + ".json"), json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Records every run of {@code workflowId} from {@code firstRunId} on, as {@code name-runN}. */
  public static void recordRuns(
      WorkflowClient client, String name, String workflowId, String firstRunId) {
    List<String> ids = runs(client, workflowId, firstRunId);
    for (int i = 0; i < ids.size(); i++) {
      record(client, name + "-run" + (i + 1), workflowId, ids.get(i));
    }
  }

  /** The run ids of a workflow, first to latest, following continue-as-new. */
  public static List<String> runs(WorkflowClient client, String workflowId, String firstRunId) {
    List<String> ids = new ArrayList<>(List.of(firstRunId));
    for (int i = 0; i < 50; i++) {
      HistoryEvent last = client.fetchHistory(workflowId, ids.get(ids.size() - 1)).getLastEvent();
      if (last.getEventType() != EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW) {
        return ids;
      }
      ids.add(last.getWorkflowExecutionContinuedAsNewEventAttributes().getNewExecutionRunId());
    }
    return ids;
  }
}
