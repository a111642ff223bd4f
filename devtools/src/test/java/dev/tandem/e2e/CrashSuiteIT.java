package dev.tandem.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.e2e.CrashPlan.Moment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Issue 9, item 2: the crash suite. {@link CrashScenario} (scale up with a job running, an
 * administrator's drain during a rolling update, {@code tandem drain/undrain}, a cordon, a
 * scale-down around running jobs) runs through the whole stack on the real Slurm while {@link
 * WorkerKiller} kills the worker JVM with SIGKILL at points chosen by the scenario's progress, and
 * {@link InvariantMonitor} and {@link EndState} judge it.
 *
 * <ul>
 *   <li>Short (default, in {@code ./mvnw verify} and {@code .ci/run}): one run with at least 5
 *       kills.
 *   <li>Full ({@code -Dtandem.crash=full}): several runs whose kills land at other moments (other
 *       counts, other moments), at least 20 kills in all.
 *   <li>Calm ({@code -Dtandem.crash=calm}): only the scenario's own two kills; a baseline of how
 *       many activities and how long the scenario takes.
 * </ul>
 *
 * Each run prints its kills and findings; the summary of the last invocation is also written to
 * {@code target/crash-suite-summary.txt}. See docs/reliability.md.
 */
class CrashSuiteIT {
  static final String MODE = System.getProperty("tandem.crash", "short");

  /** Short: kills after activity 40, 110, 180, ..., and at the first update drain. */
  static final List<CrashPlan> SHORT =
      List.of(new CrashPlan("short", 40, 70, EnumSet.of(Moment.UPDATE_DRAIN)));

  /** Full: counts and moments vary between runs so that the kills land elsewhere each time. */
  static final List<CrashPlan> FULL =
      List.of(
          new CrashPlan("full-1", 15, 45, EnumSet.of(Moment.POD_DELETED, Moment.MANUAL_DRAIN)),
          new CrashPlan("full-2", 30, 37, EnumSet.of(Moment.UPDATE_DRAIN, Moment.CORDON_DRAIN)),
          new CrashPlan("full-3", 8, 53, EnumSet.of(Moment.SCALE_DOWN_DRAIN, Moment.NODE_REMOVED)),
          new CrashPlan("full-4", 55, 29, Set.of()));

  @Test
  void theWorkerDiesAtAnyMomentAndEveryInvariantHolds() throws Exception {
    assertTrue(
        Set.of("short", "full", "calm").contains(MODE),
        "-Dtandem.crash=" + MODE + ": use short (default), full or calm");
    List<CrashPlan> plans =
        MODE.equals("full")
            ? FULL
            : MODE.equals("calm") ? List.of(new CrashPlan("calm", 0, 0, Set.of())) : SHORT;
    int minKills = MODE.equals("full") ? 20 : MODE.equals("calm") ? 0 : 5;
    List<CrashRun.Result> results = new ArrayList<>();
    Instant start = Instant.now();
    for (CrashPlan plan : plans) {
      CrashRun.Result r = CrashRun.run(plan);
      results.add(r);
      System.out.println(CrashReport.of(r));
    }
    String summary = CrashReport.summary(MODE, start, results);
    System.out.println(summary);
    write(summary);
    int kills = results.stream().mapToInt(r -> r.kills().size()).sum();
    List<String> violations =
        results.stream()
            .flatMap(r -> r.violations().stream().map(v -> r.plan().name() + ": " + v))
            .toList();
    assertTrue(violations.isEmpty(), "invariants broken:\n" + String.join("\n", violations));
    assertTrue(
        kills >= minKills, "only " + kills + " kills; the " + MODE + " suite needs " + minKills);
    for (CrashRun.Result r : results) {
      for (KillPoint k : r.kills()) {
        assertTrue(k.progressMs() >= 0, "no progress after " + k.describe());
      }
    }
  }

  private static void write(String summary) {
    try {
      Path target = Path.of("target");
      if (Files.isDirectory(target)) {
        Files.writeString(target.resolve("crash-suite-summary.txt"), summary);
      }
    } catch (IOException e) {
      System.out.println("(cannot write the summary file: " + e + ")");
    }
  }
}
