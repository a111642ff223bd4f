package dev.tandem.workflows.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.temporal.client.WorkflowClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The one place that writes workflow histories for {@code ReplayTest}. Histories are recorded only
 * on request ({@code -Dtandem.recordHistories=<tag>}, run from the {@code workflows} module): the
 * tag names the file suffix, and the new files are then listed in {@code histories/index.txt}.
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
}
