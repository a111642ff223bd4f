package dev.tandem.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.cli.TandemCli;
import dev.tandem.dev.Manifests;
import dev.tandem.devstack.kube.LocalKubernetes;
import dev.tandem.devstack.kubelet.ProcessRecords;
import dev.tandem.devstack.temporal.LocalTemporal;
import dev.tandem.slurm.SlurmEnvFile;
import dev.tandem.slurm.testing.Await;
import dev.tandem.workflows.model.NodePhase;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 9, item 1: a {@code tandem dev} that crashed (its JVM killed with SIGKILL in the middle of
 * things) leaves slurmd processes and drained Slurm nodes behind; the next stack on the same Slurm
 * cleans them up, says what it did, and its NodeSet then becomes ready.
 *
 * <p>The crashed run is a real {@code tandem dev} in a child JVM (same classpath) on the tests'
 * Slurm, with NodeSet {@code e2e} of three nodes. Before the kill, {@code e2e-2} gets a Tandem
 * drain ({@code tandem drain}), {@code e2e-1} an administrator's drain ({@code scontrol}), and a
 * job runs on {@code e2e-0}: the next stack says that Slurm requeued it when it took the node down.
 */
class DevStackRecoveryIT {
  private static final Duration LIMIT = Duration.ofSeconds(180);
  private static final Duration EVERY = Duration.ofMillis(250);
  private static final String SET = "e2e";

  @Test
  void theNextStackCleansUpAfterACrashedOne() throws Exception {
    Path dir = Files.createTempDirectory("tandem-crashed-dev-");
    Path manifest = dir.resolve("nodeset.yaml");
    Files.writeString(manifest, Manifests.nodeSet(SET, 3, "slurmd:v1", ""));
    int temporalPort = ChildDevStack.freePort();
    Path out = dir.resolve("dev.out");
    Path slurmDir = SlurmEnvFile.defaultPath(System.getenv()).getParent();
    Process dev = ChildDevStack.start(dir, manifest, temporalPort, out);
    long workerPid;
    List<Long> slurmds;
    long job = 0;
    try {
      Await.until(
          "the crashing tandem dev is ready",
          LIMIT,
          EVERY,
          () -> read(out),
          o -> {
            if (!dev.isAlive()) {
              throw new AssertionError("tandem dev exited:\n" + o);
            }
            return o.contains("ready after");
          });
      job =
          Long.parseLong(
              slurm(
                      List.of(
                          "sbatch",
                          "--parsable",
                          "-p",
                          "low",
                          "-w",
                          SET + "-0",
                          "-o",
                          "/dev/null",
                          "-D",
                          "/tmp",
                          "--wrap",
                          "sleep 600"))
                  .trim()
                  .split(";")[0]);
      long id = job;
      Await.until(
          "job " + id + " running on " + SET + "-0",
          Duration.ofSeconds(60),
          EVERY,
          () -> squeue(id),
          st -> st.equals("R"));
      String address = "127.0.0.1:" + temporalPort;
      StringWriter w = new StringWriter();
      int code =
          TandemCli.run(
              new PrintWriter(w),
              new PrintWriter(w),
              "drain",
              SET + "-2",
              "--reason",
              "before the crash",
              "--wait",
              "--timeout",
              "60s",
              "--address",
              address);
      assertEquals(0, code, w.toString());
      slurm(List.of("scontrol", "update", "NodeName=" + SET + "-1", "State=DRAIN", "Reason=disk"));
      workerPid = Long.parseLong(Files.readString(dir.resolve("state/worker.pid")).trim());
      slurmds =
          new ProcessRecords(slurmDir.resolve("kubelet-processes"))
              .list().stream()
                  .filter(e -> e.pod().startsWith(SET + "-") && e.live().isPresent())
                  .map(ProcessRecords.Entry::pid)
                  .toList();
      assertEquals(3, slurmds.size(), "one recorded slurmd per pod");
    } finally {
      dev.destroyForcibly(); // SIGKILL: no shutdown hook runs, nothing is stopped in order
      assertTrue(dev.waitFor(30, TimeUnit.SECONDS));
      // Its control plane runs on (a next tandem dev on that state dir would stop it); this test
      // starts its next stack elsewhere, so it stops the plane itself.
      LocalKubernetes.stopLeftover(dir.resolve("state").resolve("kube"));
    }
    assertEquals(137, dev.exitValue(), "killed by SIGKILL");
    for (long pid : slurmds) {
      assertTrue(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "orphan " + pid);
    }
    // The worker notices that its supervisor is gone (its stdin pipe closes) and stops by itself.
    Await.until(
        "the crashed run's worker gone",
        Duration.ofSeconds(60),
        EVERY,
        () -> ProcessHandle.of(workerPid).map(ProcessHandle::isAlive).orElse(false),
        alive -> !alive);
    assertTrue(slurmInfo(SET + "-2").contains("tandem:manual: before the crash"));

    try (E2EStack e2e = E2EStack.start(Map.of())) {
      String all = String.join("; ", e2e.stack.cleanedUp());
      assertTrue(
          all.contains("Slurm requeued job " + job + " (wrap), which ran on " + SET + "-0, it "),
          all);
      slurm(List.of("scancel", Long.toString(job))); // requeued, it would take a node of the test
      checkCleanUpAndComeUp(e2e, slurmds);
    } finally {
      cancelQuietly(job);
      // The crashed run's Temporal server outlives it (a next tandem dev on its state dir stops
      // it).
      LocalTemporal.stopLeftover(dir.resolve("state").resolve("temporal"));
      // The administrator's drain must not outlive this test whatever happened: the next suites
      // use the same pool.
      undrainQuietly(SET + "-1");
    }
  }

  private static void checkCleanUpAndComeUp(E2EStack e2e, List<Long> slurmds) throws Exception {
    List<String> done = e2e.stack.cleanedUp();
    String all = String.join("; ", done);
    for (int i = 0; i < 3; i++) {
      assertTrue(
          all.contains("stopped orphan slurmd for " + SET + "-" + i + " (pid " + slurmds.get(i)),
          all);
    }
    assertTrue(all.contains("lifted Tandem drain on e2e-2 (tandem:manual: before the crash)"), all);
    assertTrue(all.contains("left the administrator's drain on e2e-1 (disk)"), all);
    for (long pid : slurmds) {
      assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "" + pid);
    }
    // Left as it was in Slurm: drained with the administrator's reason (its slurmd is gone, so
    // Slurm shows it not responding, later DOWN, until the administrator resumes it).
    String n1 = slurmInfo(SET + "-1");
    assertTrue(
        !n1.contains("State=FUTURE") && n1.contains("DRAIN") && n1.contains("Reason=disk"), n1);
    String n2 = slurmInfo(SET + "-2");
    // FUTURE, possibly +NOT_RESPONDING (its slurmd is gone), but no drain and no reason.
    assertTrue(n2.contains("State=FUTURE") && !n2.contains("DRAIN") && !n2.contains("Reason="), n2);

    // The administrator lifts their drain; the NodeSet comes up ready on a clean Slurm.
    slurm(List.of("scontrol", "update", "NodeName=" + SET + "-1", "State=RESUME"));
    e2e.apply(Manifests.nodeSet(SET, 3, "slurmd:v1", ""));
    for (int i = 0; i < 3; i++) {
      e2e.awaitPhase(SET + "-" + i, NodePhase.READY);
      String n = SET + "-" + i;
      Await.until(
          n + " idle with no flag",
          Duration.ofSeconds(60),
          EVERY,
          () -> e2e.slurmNode(n),
          x -> x.isPresent() && "idle".equals(x.get().state()) && x.get().flags().isEmpty());
    }
    e2e.deleteNodeSet(SET, Duration.ofSeconds(90));
  }

  private static void cancelQuietly(long job) {
    try {
      slurm(List.of("scancel", Long.toString(job)));
    } catch (Exception | AssertionError e) {
      // no job, or already ended
    }
  }

  /** The job's compact state ({@code R}, {@code PD}, ...), or empty once Slurm forgot it. */
  private static String squeue(long job) {
    try {
      return slurm(List.of("squeue", "-h", "-j", Long.toString(job), "-o", "%t")).trim();
    } catch (Exception e) {
      return "";
    }
  }

  private static void undrainQuietly(String node) {
    try {
      slurm(List.of("scontrol", "update", "NodeName=" + node, "State=RESUME"));
    } catch (Exception | AssertionError e) {
      // not drained, or Slurm is gone: nothing to undo
    }
  }

  private static String read(Path f) {
    try {
      return Files.readString(f);
    } catch (java.io.IOException e) {
      return "";
    }
  }

  /** {@code scontrol show node -F NAME}: also FUTURE nodes, which REST does not list. */
  private static String slurmInfo(String node) throws Exception {
    return slurm(List.of("scontrol", "show", "node", "-F", node));
  }

  private static String slurm(List<String> cmd) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    Path conf = SlurmEnvFile.defaultPath(System.getenv()).getParent().resolve("etc/slurm.conf");
    pb.environment().put("SLURM_CONF", conf.toString());
    Process p = pb.start();
    assertTrue(p.waitFor(30, TimeUnit.SECONDS), cmd + " timed out");
    String o = new String(p.getInputStream().readAllBytes());
    assertEquals(0, p.exitValue(), cmd + ": " + o);
    return o;
  }
}
