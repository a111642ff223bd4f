package dev.tandem.slurm.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.SlurmClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code slurm-local.sh start} on a partly running Slurm starts only what is dead: with slurmrestd
 * killed and one static slurmd killed, it brings both back, and a job running meanwhile on another
 * node runs on (same job, never requeued, its slurmd never restarted).
 */
class SlurmLocalStartIT {
  private static final Duration LIMIT = Duration.ofSeconds(60);

  @Test
  void startOnAPartlyRunningSlurmKeepsJobsAndBringsBackWhatIsDead() throws Exception {
    LocalSlurm slurm = LocalSlurm.get();
    long job =
        Long.parseLong(
            cmd(slurm, "sbatch", "--parsable", "-w", "n1", "--wrap", "sleep 300")
                .trim()
                .split(";")[0]);
    try {
      awaitState(slurm, job, "RUNNING");
      long slurmdN1 = pid(slurm, "slurmd-n1");
      long slurmdN2 = pid(slurm, "slurmd-n2");
      assertRun(slurm, "rest-kill");
      slurm.killSlurmd("n2");
      assertNotEquals(0, LocalSlurm.run(slurm.script(), LIMIT, "status").exitCode());

      LocalSlurmScript.Result start = LocalSlurm.run(slurm.script(), LIMIT, "start");
      assertEquals(0, start.exitCode(), start.output());
      assertTrue(
          start.output().contains("partly running: started slurmd n2, slurmrestd;"),
          start.output());
      assertTrue(!LocalSlurmScript.startedFresh(start.output()), "not a fresh start");

      assertEquals("RUNNING n1 0", jobLine(slurm, job), "the job runs on, never requeued");
      assertEquals(slurmdN1, pid(slurm, "slurmd-n1"), "n1's slurmd was not restarted");
      assertNotEquals(slurmdN2, pid(slurm, "slurmd-n2"), "n2's slurmd was started again");
      try (SlurmClient c = slurm.client()) {
        assertTrue(c.ping().controllerUp(), "slurmrestd answers again");
      }
      assertEquals(0, LocalSlurm.run(slurm.script(), LIMIT, "status").exitCode());
    } finally {
      cmd(slurm, "scancel", Long.toString(job));
    }
  }

  private static void assertRun(LocalSlurm slurm, String command) {
    LocalSlurmScript.Result r = LocalSlurm.run(slurm.script(), LIMIT, command);
    assertEquals(0, r.exitCode(), command + ": " + r.output());
  }

  /** State, node list and restart count, from scontrol. */
  private static String jobLine(LocalSlurm slurm, long job) throws Exception {
    String show = cmd(slurm, "scontrol", "-o", "show", "job", Long.toString(job));
    return field(show, "JobState") + " " + field(show, "NodeList") + " " + field(show, "Restarts");
  }

  private static String field(String line, String key) {
    for (String kv : line.trim().split("\\s+")) {
      if (kv.startsWith(key + "=")) {
        return kv.substring(key.length() + 1);
      }
    }
    return "(no " + key + ")";
  }

  private static void awaitState(LocalSlurm slurm, long job, String state) throws Exception {
    long end = System.nanoTime() + LIMIT.toNanos();
    String last = "";
    while (System.nanoTime() < end) {
      last = jobLine(slurm, job);
      if (last.startsWith(state + " ")) {
        return;
      }
      Thread.sleep(200);
    }
    throw new AssertionError("job " + job + " not " + state + " within " + LIMIT + ": " + last);
  }

  private static long pid(LocalSlurm slurm, String name) throws IOException {
    Path f = slurm.dir().resolve("run").resolve(name + ".pid");
    return Long.parseLong(Files.readString(f).trim());
  }

  /** A Slurm client command against the local Slurm; its stdout (bounded wait). */
  private static String cmd(LocalSlurm slurm, String... args) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(new ArrayList<>(List.of(args)));
    pb.environment().put("SLURM_CONF", slurm.env().get("SLURM_CONF"));
    pb.redirectErrorStream(true);
    Process p = pb.start();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException(String.join(" ", args) + " did not end within 30 s");
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.exitValue() != 0) {
      throw new IllegalStateException(String.join(" ", args) + " failed: " + out);
    }
    return out;
  }
}
