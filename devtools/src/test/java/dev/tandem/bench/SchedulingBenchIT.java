package dev.tandem.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.cli.TandemCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code tandem bench scheduling} end to end at 12 pods on the real local Slurm: every part runs
 * (Tandem's pods, the raw jobs, the floor through {@link FloorScheduler}), each brings all its
 * items through, the floor makes no failed call and leaves no job behind, and the floor's line
 * compares it with both targets, and every measured pod's history is read for refused tasks. No
 * timing target is asserted: this is a 2-core machine shared with the rest of the build.
 */
class SchedulingBenchIT {
  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES)
  void everyPartBringsAllItsPodsThroughAndTheFloorSaysWhatIsWithinReach() {
    String out = bench("--pods", "12").out();
    for (String part :
        new String[] {"pods create -> bind", "raw submit -> RUNNING", "floor create -> bind"}) {
      assertTrue(
          Pattern.compile("(?m)^" + Pattern.quote(part) + "\\s+12/12 done").matcher(out).find(),
          part + " brought every item through: " + out);
    }
    assertFalse(out.contains("WARNING"), out);
    // The raw jobs run right after the pods, the floor after them (SchedulingBench: the floor's
    // cancels hold their nodes for KillWait), and the job table each measured part starts from is
    // shown.
    assertTrue(
        out.indexOf("raw submit -> RUNNING") < out.indexOf("floor create -> bind"),
        "raw jobs before the floor: " + out);
    assertTrue(
        Pattern.compile("(?m)^  Slurm lists \\d+ jobs \\(MinJobAge=\\d+ s\\)$").matcher(out).find(),
        out);
    Matcher floor =
        Pattern.compile(
                "floor \\(required calls only\\): floor/raw = [0-9.]+, target 0.8 (within reach"
                    + " here|OUT OF REACH here); p50 floor - raw = [-+][0-9.]+ ms, target \\+250 ms"
                    + " (within reach here|OUT OF REACH here); pods/floor = [0-9.]+")
            .matcher(out);
    assertTrue(floor.find(), out);
    // Every measured pod's workflow history was read for its refused or timed-out tasks
    // (RefusedTasks): a wrong workflow id would show as histories that could not be read.
    assertTrue(
        Pattern.compile("(?m)^  measured: \\d+ of 12 pods, \\d+ tasks").matcher(out).find(), out);
    assertFalse(out.contains("could not be read"), out);
  }

  /**
   * {@code --rate}: the pods and raw jobs are offered at a fixed rate, every item comes through,
   * the run says whether each side kept up, and it never passes: it measures no throughput.
   */
  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES)
  void aPacedRunTimesLatencyAndNeverPassesTheThroughputTarget() {
    Bench b = bench("--pods", "8", "--rate", "4", "--no-floor");
    String out = b.out();
    assertTrue(out.contains("pods and jobs offered at 4.0 a second"), out);
    for (String part : new String[] {"pods create -> bind", "raw submit -> RUNNING"}) {
      assertTrue(
          Pattern.compile("(?m)^" + Pattern.quote(part) + "\\s+8/8 done").matcher(out).find(),
          part + " brought every item through: " + out);
    }
    assertTrue(
        Pattern.compile("(?m)^throughput pods/raw = [0-9.]+ \\(target >= 0.8\\): NOT_MEASURED$")
            .matcher(out)
            .find(),
        out);
    assertTrue(
        Pattern.compile(
                "(?m)^paced at 4.0 a second: pods bound [0-9.]+ a second \\((kept up|FELL"
                    + " BEHIND: latencies include a queue)\\), raw jobs RUNNING [0-9.]+ a second")
            .matcher(out)
            .find(),
        out);
    assertFalse(out.contains("WARNING"), out);
    assertEquals(1, b.code(), "a paced run never passes: " + out);
  }

  private record Bench(int code, String out) {}

  /**
   * {@code tandem bench scheduling} on 2 slurmd pods, no warm-up, no preemptions, and {@code more}.
   */
  private static Bench bench(String... more) {
    StringWriter w = new StringWriter();
    PrintWriter pw = new PrintWriter(w, true);
    java.util.List<String> args =
        new java.util.ArrayList<>(
            java.util.List.of(
                "bench", "scheduling", "--warmup", "0", "--preemptions", "0", "--replicas", "2"));
    args.addAll(java.util.List.of(more));
    int code = TandemCli.run(pw, pw, args.toArray(String[]::new));
    return new Bench(code, w.toString());
  }
}
