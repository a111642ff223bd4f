package dev.tandem.dev;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.slurm.SlurmJob;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class JobFatesTest {
  private static SlurmJob job(long id, String state, String node, int restarts, String reason) {
    return new SlurmJob(
        id,
        "wrap",
        null,
        state,
        Set.of(),
        reason,
        node,
        node.isEmpty() ? List.of() : List.of(node),
        "low",
        null,
        null,
        "root",
        restarts,
        null,
        null,
        null,
        null,
        null,
        null,
        SlurmJob.Request.UNKNOWN);
  }

  @Test
  void onlyJobsHoldingATakenDownNodeCount() {
    List<SlurmJob> jobs =
        List.of(
            job(1, "RUNNING", "e2e-0", 0, "None"),
            job(2, "RUNNING", "n1", 0, "None"),
            job(3, "COMPLETED", "e2e-0", 0, "None"),
            job(4, "COMPLETING", "e2e-1", 0, "None"));
    assertEquals(
        List.of(1L, 4L),
        JobFates.on(Set.of("e2e-0", "e2e-1"), jobs).stream().map(SlurmJob::id).toList());
  }

  @Test
  void eachJobIsToldWhatSlurmMadeOfIt() {
    List<SlurmJob> before =
        List.of(
            job(11, "RUNNING", "e2e-0", 0, "None"),
            job(12, "RUNNING", "e2e-1", 0, "None"),
            job(13, "RUNNING", "e2e-2", 1, "None"),
            job(14, "RUNNING", "e2e-0", 0, "None"),
            job(15, "RUNNING", "e2e-1", 0, "None"),
            job(16, "RUNNING", "e2e-2", 0, "None"));
    Map<Long, SlurmJob> after =
        Map.of(
            11L, job(11, "PENDING", "", 1, "BeginTime"),
            12L, job(12, "RUNNING", "n1", 1, "None"),
            13L, job(13, "NODE_FAIL", "e2e-2", 1, "None"),
            15L, job(15, "COMPLETED", "e2e-1", 0, "None"),
            16L, job(16, "RUNNING", "e2e-2", 0, "None"));
    assertEquals(
        List.of(
            "Slurm requeued job 11 (wrap), which ran on e2e-0, it waits to run again (PENDING,"
                + " reason BeginTime)",
            "Slurm requeued job 12 (wrap), which ran on e2e-1, it is RUNNING on n1 again",
            "job 13 (wrap), which ran on e2e-2, ended NODE_FAIL: lost",
            "job 14 (wrap), which ran on e2e-0, is no longer listed by Slurm: lost",
            "job 15 (wrap), which ran on e2e-1, ended COMPLETED",
            "job 16 (wrap), which ran on e2e-2, is still RUNNING on e2e-2"),
        JobFates.report(before, after));
  }
}
