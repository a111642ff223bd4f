package dev.tandem.workflows.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.model.SlurmJobView;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class JobOutlookTest {
  static SlurmJobView job(String state, int restarts) {
    return new SlurmJobView(1, "n", "c", state, null, List.of(), restarts, null);
  }

  @ParameterizedTest
  @CsvSource({
    "PENDING, false, 0, WAITING",
    "CONFIGURING, false, 0, WAITING",
    "PENDING, true, 0, PREEMPTED",
    "PENDING, false, 1, PREEMPTED",
    "RUNNING, false, 0, RUNNING",
    "RUNNING, true, 2, RUNNING",
    "PREEMPTED, true, 0, PREEMPTED",
    "SUSPENDED, true, 0, PREEMPTED",
    "REQUEUED, true, 0, PREEMPTED",
    "REQUEUE_HOLD, false, 0, PREEMPTED",
    "CANCELLED, true, 0, ENDED",
    "TIMEOUT, true, 0, ENDED",
    "NODE_FAIL, true, 0, ENDED",
    "FAILED, false, 0, ENDED",
    "COMPLETED, true, 0, ENDED",
    "GONE, true, 0, ENDED",
    "RESIZING, true, 0, UNKNOWN",
    "'', true, 0, UNKNOWN",
  })
  void outlook(String state, boolean hasRun, int restarts, JobOutlook expected) {
    assertEquals(expected, JobOutlook.of(job(state, restarts), hasRun));
  }

  @Test
  void noViewIsUnknown() {
    assertEquals(JobOutlook.UNKNOWN, JobOutlook.of(null, true));
    assertEquals(JobOutlook.UNKNOWN, JobOutlook.of(job(null, 0), true));
  }

  @Test
  void finishedJobsNeedNoCancel() {
    for (String s : List.of("PREEMPTED", "CANCELLED", "TIMEOUT", "COMPLETED", "GONE")) {
      assertTrue(JobOutlook.finished(job(s, 0)), s);
    }
    for (String s : List.of("PENDING", "RUNNING", "SUSPENDED", "REQUEUED", "RESIZING")) {
      assertFalse(JobOutlook.finished(job(s, 0)), s);
    }
    assertFalse(JobOutlook.finished(null), "unknown is never finished (fail closed)");
  }

  @Test
  void camelCaseReasons() {
    assertEquals("NodeFail", JobOutlook.camel("NODE_FAIL"));
    assertEquals("Timeout", JobOutlook.camel("TIMEOUT"));
    assertEquals("OutOfMemory", JobOutlook.camel("OUT_OF_MEMORY"));
  }
}
