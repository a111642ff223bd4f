package dev.tandem.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class CpuSharesTest {
  @Test
  void processesThatEndedAreTheGrowthOfReapedTimeLessWhatTheGoneHadUsedBefore() {
    // own, reaped: pid 1 reaps orphans; pid 50 (a slurmstepd alive at a) ends and is reaped by 1.
    Map<Long, double[]> a =
        Map.of(
            1L, new double[] {1.0, 10.0}, 50L, new double[] {0.5, 0.25}, 60L, new double[] {2, 3});
    Map<Long, double[]> b =
        Map.of(
            1L, new double[] {1.0, 14.0}, // +4: pid 50's whole life (1.5) and 2.5 s of new ones
            60L, new double[] {2.5, 3.0},
            70L, new double[] {0.1, 0.5}); // started in between: its reaped children count whole

    // 4 + 0 + 0.5 - (0.5 + 0.25) = 3.75
    assertEquals(3.75, CpuShares.ended(a, b), 1e-9);
    assertEquals(0, CpuShares.ended(b, b), 1e-9);
  }

  @Test
  void aChildThatEndedShowsInItsParentsReapedTime() throws Exception {
    long self = ProcessHandle.current().pid();
    double before = ProcStats.cpuAndReapedSeconds(self)[1];
    // A child that burns CPU by work done, not by wall time (the build may load both cores), then
    // is waited for (reaped) by this JVM.
    Process p =
        new ProcessBuilder("sh", "-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done").start();
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    double after = ProcStats.cpuAndReapedSeconds(self)[1];
    assertTrue(after - before >= 0.02, "reaped " + before + " -> " + after);
  }
}
