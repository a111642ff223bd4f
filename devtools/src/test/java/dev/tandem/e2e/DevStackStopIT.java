package dev.tandem.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.dev.Manifests;
import dev.tandem.devstack.kubelet.ProcessRecords;
import dev.tandem.slurm.SlurmEnvFile;
import dev.tandem.slurm.testing.Await;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Stopping {@code tandem dev} with SIGTERM (what Ctrl-C does to the JVM) leaves no process of it
 * behind: the job running on its slurmd pod is cancelled and said so on the console, and neither
 * the job's processes (slurmstepd, the batch script, its {@code sleep}) nor the slurmd nor the
 * worker outlive it.
 *
 * <p>A real {@code tandem dev} in a child JVM (same classpath) on the tests' Slurm, with NodeSet
 * {@code e2e} of one node and a job on it.
 */
class DevStackStopIT {
  private static final Duration LIMIT = Duration.ofSeconds(180);
  private static final Duration EVERY = Duration.ofMillis(250);

  @Test
  void sigtermCancelsTheStacksJobsAndLeavesNoProcess() throws Exception {
    Path dir = Files.createTempDirectory("tandem-stopped-dev-");
    Path manifest = dir.resolve("nodeset.yaml");
    Files.writeString(manifest, Manifests.nodeSet("e2e", 1, "slurmd:v1", ""));
    Path slurmDir = SlurmEnvFile.defaultPath(System.getenv()).getParent();
    Path out = dir.resolve("dev.out");
    Process dev = ChildDevStack.start(dir, manifest, ChildDevStack.freePort(), out);
    long job = 0;
    try {
      Await.until(
          "tandem dev is ready",
          LIMIT,
          EVERY,
          () -> read(out),
          o -> {
            if (!dev.isAlive()) {
              throw new AssertionError("tandem dev exited:\n" + o);
            }
            return o.contains("ready after");
          });
      long worker = Long.parseLong(Files.readString(dir.resolve("state/worker.pid")).trim());
      long temporal =
          Long.parseLong(Files.readString(dir.resolve("state/temporal/temporal.pid")).trim());
      assertTrue(alive(temporal), "the stack's Temporal server runs");
      List<Long> slurmds =
          new ProcessRecords(slurmDir.resolve("kubelet-processes"))
              .list().stream()
                  .filter(e -> e.pod().equals("e2e-0") && e.live().isPresent())
                  .map(ProcessRecords.Entry::pid)
                  .toList();
      assertEquals(1, slurmds.size(), "the slurmd of e2e-0, recorded");
      String id =
          slurm(
                  "sbatch",
                  "--parsable",
                  "-p",
                  "low",
                  "-w",
                  "e2e-0",
                  "-o",
                  "/dev/null",
                  "-D",
                  "/tmp",
                  "--wrap",
                  "sleep 600")
              .trim()
              .split(";")[0];
      job = Long.parseLong(id);
      List<Long> jobProcs =
          Await.until(
              "job " + id + " running, with its processes",
              Duration.ofSeconds(60),
              EVERY,
              () -> processesOf(id),
              l -> l.size() >= 2); // slurmstepd and the batch script (and its sleep)

      dev.destroy(); // SIGTERM, as Ctrl-C's SIGINT: the shutdown hooks stop the stack
      assertTrue(dev.waitFor(120, TimeUnit.SECONDS), "tandem dev stopped:\n" + read(out));
      String console = read(out);
      assertTrue(
          console.contains("stopping: cancelled 1 job(s) on the stack's nodes: " + id + " (e2e-0)"),
          console);
      // Cancelled before the stack stopped; its last processes (slurmstepd's cleanup) may take a
      // moment more to exit, never longer than this.
      Await.until(
          "every process of job " + id + " gone",
          Duration.ofSeconds(10),
          EVERY,
          () -> jobProcs.stream().filter(DevStackStopIT::alive).toList(),
          List::isEmpty);
      assertEquals(List.of(), processesOf(id), "no process of job " + id + " is left");
      assertFalse(alive(slurmds.get(0)), "the slurmd of e2e-0 outlived the stack");
      Await.until("the worker gone", Duration.ofSeconds(60), EVERY, () -> alive(worker), a -> !a);
      assertFalse(alive(temporal), "the Temporal server outlived the stack");
      assertEquals("", slurm("squeue", "-h", "-j", id, "-t", "R,S,CG,PD", "-o", "%A").trim());
    } finally {
      if (dev.isAlive()) {
        dev.destroyForcibly();
        dev.waitFor(30, TimeUnit.SECONDS);
      }
      if (job != 0) {
        try {
          slurm("scancel", Long.toString(job));
        } catch (Exception | AssertionError e) {
          // already ended
        }
      }
    }
  }

  /**
   * The processes of a job: its slurmstepd ({@code slurmstepd: [<id>.batch]}) and whatever runs
   * with {@code SLURM_JOB_ID=<id>} in its environment.
   */
  private static List<Long> processesOf(String id) {
    List<Long> out = new ArrayList<>();
    try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
      for (Path p : procs.toList()) {
        String name = p.getFileName().toString();
        if (!name.matches("\\d+")) {
          continue;
        }
        String cmdline = text(p.resolve("cmdline"));
        String environ = text(p.resolve("environ"));
        if (cmdline.startsWith("slurmstepd: [" + id + ".")
            || ("\0" + environ).contains("\0SLURM_JOB_ID=" + id + "\0")) {
          out.add(Long.parseLong(name));
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return out;
  }

  private static String text(Path f) {
    try {
      return new String(Files.readAllBytes(f), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return ""; // ended meanwhile, or not readable
    }
  }

  private static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  private static String read(Path f) {
    try {
      return Files.readString(f);
    } catch (IOException e) {
      return "";
    }
  }

  private static String slurm(String... cmd) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    Path conf = SlurmEnvFile.defaultPath(System.getenv()).getParent().resolve("etc/slurm.conf");
    pb.environment().put("SLURM_CONF", conf.toString());
    Process p = pb.start();
    assertTrue(p.waitFor(30, TimeUnit.SECONDS), List.of(cmd) + " timed out");
    String o = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), List.of(cmd) + ": " + o);
    return o;
  }
}
