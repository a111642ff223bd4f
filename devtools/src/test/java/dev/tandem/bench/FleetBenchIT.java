package dev.tandem.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.cli.TandemCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tandem bench fleet} end to end at 20 nodes with a 10 s rest: the whole simulated stack
 * (fake slurmrestd, simulated kubelets, local API, the Temporal server, a worker JVM) comes up,
 * every phase finishes, and the appended table is consistent: all 20 nodes provisioned, the rollout
 * never had more nodes out than its budget of 2, both cordoned nodes' drains were seen, the at-rest
 * figures are measured (non-negative) and histories were sampled. No timing targets are asserted:
 * this is a 2-core machine shared with others.
 */
class FleetBenchIT {
  @Test
  @Timeout(value = 15, unit = TimeUnit.MINUTES)
  void smallFleetRunsEveryPhaseAndItsFiguresAgree(@TempDir Path dir) throws Exception {
    Path md = dir.resolve("bench.md");
    StringWriter w = new StringWriter();
    PrintWriter pw = new PrintWriter(w, true);
    int code =
        TandemCli.run(
            pw,
            pw,
            "bench",
            "fleet",
            "--nodes",
            "20",
            "--rest",
            "10s",
            "--register-delay",
            "1s",
            "--phase-limit",
            "5m",
            "--append",
            md.toString());
    String out = w.toString();
    assertEquals(0, code, out);
    Matcher state = Pattern.compile("starting a simulated fleet stack in (\\S+)").matcher(out);
    assertTrue(state.find(), out);
    assertFalse(Files.exists(Path.of(state.group(1))), "state directory left after a passed run");
    String table = Files.readString(md);
    assertTrue(table.startsWith("\n### 20 nodes, "), table);
    assertTrue(table.contains("`tandem bench fleet --nodes 20 --rest 10s"), table);
    assertTrue(table.contains("| provision 20 nodes | "), table);

    Matcher most =
        row(table, "rolling update, most nodes out at once", "(\\d+) \\(budget (\\d+)\\)");
    int maxOut = Integer.parseInt(most.group(1));
    assertEquals(2, Integer.parseInt(most.group(2)), "10% of 20");
    assertTrue(
        maxOut >= 1 && maxOut <= 2, "a rollout takes nodes out, never over budget: " + table);
    assertTrue(table.contains("| never over budget | PASS |"), table);

    Matcher rollout =
        row(
            table,
            "rolling update, maxUnavailable 10%",
            ".*?ideal (\\d+) waves × [0-9.]+ s \\(median node cycle of (\\d+)\\)");
    assertEquals(10, Integer.parseInt(rollout.group(1)), "ceil(20 / 2) waves");
    assertEquals(20, Integer.parseInt(rollout.group(2)), "every node's cycle measured: " + table);

    assertTrue(table.contains("| cordon 2 k8s nodes → Slurm drained | p50 "), table);
    // At rest the Slurm watcher still polls every 2 s: the worker and slurmrestd are never idle.
    Matcher cpu = row(table, "at rest 0.[0-9] min: worker CPU", "([0-9.]+) cores");
    assertTrue(Double.parseDouble(cpu.group(1)) > 0, table);
    Matcher slurm = row(table, Pattern.quote("at rest: slurmrestd requests"), "([0-9.]+) /min");
    assertTrue(Double.parseDouble(slurm.group(1)) > 0, table);
    // Tandem's API requests at rest may be none in a short window (watches stay open): the row
    // must be there with a number.
    row(table, Pattern.quote("at rest: Kubernetes API requests (Tandem's)"), "[0-9.]+ /min");
    Matcher hist = row(table, "largest history length", "(\\d+) events \\(([^)]+)\\)");
    assertTrue(Long.parseLong(hist.group(1)) > 0, table);
    assertTrue(
        hist.group(2).startsWith("node/default/fleet-") || hist.group(2).startsWith("nodeset/"));
  }

  private static Matcher row(String table, String phase, String figure) {
    Matcher m = Pattern.compile("\\| " + phase + " \\| " + figure).matcher(table);
    assertTrue(m.find(), "row " + phase + " with " + figure + " in\n" + table);
    return m;
  }
}
