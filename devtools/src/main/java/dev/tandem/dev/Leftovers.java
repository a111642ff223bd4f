package dev.tandem.dev;

import dev.tandem.devstack.kubelet.ProcessRecords;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmClientConfig;
import dev.tandem.slurm.SlurmClients;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmNode;
import dev.tandem.slurm.local.LocalSlurmScript;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Puts right what an earlier stack on the same local Slurm left when it did not stop cleanly (its
 * JVM was SIGKILLed, the machine lost power): a new stack starts with an empty Kubernetes API and
 * an empty Temporal, so nothing it runs can own what the earlier one left. Runs after Slurm is up
 * and before the kubelet and the worker start, under the {@link StackLock}, so no other live stack
 * uses this Slurm.
 *
 * <ol>
 *   <li>The earlier worker, if it still runs (its pid file in the state dir, and its command line
 *       naming that state dir): stopped.
 *   <li>Orphan slurmd processes: those the earlier kubelet recorded ({@link ProcessRecords}: pid,
 *       start time and argv must all still match, so nothing is signalled that a kubelet of this
 *       Slurm did not start). Each is stopped the way {@code slurm-local.sh node-down} does it
 *       (DOWN while slurmd runs so its jobs end, then slurmd stopped, then State=FUTURE), which
 *       also clears the node's Tandem drain.
 *   <li>Every other pool node Slurm still lists (not FUTURE): a Tandem drain (reason {@code
 *       tandem:...}) is lifted, since nothing can hold it any more; with no slurmd running for it,
 *       the node is returned to FUTURE. A slurmd this stack did not start is left running.
 *   <li>A node with an administrator's drain (any other reason) is left as it is in Slurm (only an
 *       orphan slurmd of it is stopped) and mentioned: a return to FUTURE would clear the drain,
 *       and a drain set again on a FUTURE node loses its reason when the node registers.
 *   <li>The jobs that ran on the nodes taken down: what Slurm made of each (requeued, ended, lost)
 *       is said ({@link JobFates}), so no job starts again, or vanishes, unannounced.
 * </ol>
 *
 * Static nodes ({@code n1..}) are not Tandem's and are not touched.
 */
final class Leftovers {
  static final String TANDEM_PREFIX = "tandem:";
  private static final Duration NODE_DOWN_TIMEOUT = Duration.ofMinutes(1);

  private final Path stateDir;
  private final LocalSlurmScript.Running slurm;
  private final Map<String, String> scriptEnv;
  private final ProcessRecords records;
  private final SlurmClient client;
  private final List<String> done = new ArrayList<>();
  private final Set<String> takenDown = new HashSet<>();

  Leftovers(
      Path stateDir,
      LocalSlurmScript.Running slurm,
      Map<String, String> scriptEnv,
      ProcessRecords records,
      SlurmClient client) {
    this.stateDir = stateDir.toAbsolutePath();
    this.slurm = slurm;
    this.scriptEnv = scriptEnv;
    this.records = records;
    this.client = client;
  }

  /** Cleans up with a Slurm client of its own; returns what was done (empty: nothing was left). */
  static List<String> cleanUp(
      Path stateDir,
      LocalSlurmScript.Running slurm,
      Map<String, String> scriptEnv,
      ProcessRecords records)
      throws InterruptedException {
    try (SlurmClient client = SlurmClients.create(SlurmClientConfig.fromEnv(slurm.env()))) {
      return new Leftovers(stateDir, slurm, scriptEnv, records, client).cleanUp();
    }
  }

  /** Does it all; returns what was done, one short sentence each (empty: nothing was left). */
  List<String> cleanUp() throws InterruptedException {
    stopEarlierWorker();
    Map<String, SlurmNode> nodes = new LinkedHashMap<>();
    try {
      for (SlurmNode n : client.listNodes(null).items()) {
        nodes.put(n.name(), n);
      }
    } catch (RuntimeException e) {
      done.add("could not list the Slurm nodes to check for leftovers (" + e.getMessage() + ")");
    }
    List<SlurmJob> jobsBefore = listJobs();
    Set<String> handled = new HashSet<>();
    for (ProcessRecords.Entry e : records.list()) {
      Optional<ProcessHandle> p = e.live();
      if (p.isPresent()) {
        stopOrphan(e, p.get(), nodes.get(e.pod()));
        handled.add(e.pod());
      }
      records.forget(e.file(), e.pid());
    }
    for (SlurmNode n : nodes.values()) {
      if (!handled.contains(n.name()) && pools().isPoolNode(n.name()) && !n.future()) {
        cleanPoolNode(n);
      }
    }
    List<SlurmJob> held = JobFates.on(takenDown, jobsBefore);
    if (!held.isEmpty()) {
      Map<Long, SlurmJob> after = new HashMap<>();
      listJobs().forEach(j -> after.put(j.id(), j));
      done.addAll(JobFates.report(held, after));
    }
    return List.copyOf(done);
  }

  private List<SlurmJob> listJobs() {
    try {
      return client.listJobs(null).items();
    } catch (RuntimeException e) {
      done.add("could not list the Slurm jobs (" + e.getMessage() + ")");
      return List.of();
    }
  }

  private void stopEarlierWorker() throws InterruptedException {
    Path pidFile = stateDir.resolve("worker.pid");
    Optional<ProcessHandle> p = readPid(pidFile).flatMap(ProcessHandle::of);
    String mark = new WorkerLaunch(stateDir, 0, Map.of()).stateDirMark();
    if (p.isPresent() && p.get().isAlive() && commandLine(p.get().pid()).contains(mark)) {
      stop(p.get(), Duration.ofSeconds(15));
      done.add("stopped the worker an earlier run left (pid " + p.get().pid() + ")");
    }
    try {
      Files.deleteIfExists(pidFile);
    } catch (IOException e) {
      // the new worker overwrites it
    }
  }

  private void stopOrphan(ProcessRecords.Entry e, ProcessHandle p, SlurmNode node)
      throws InterruptedException {
    boolean adminDrain = adminDrain(node);
    takenDown.add(e.pod());
    boolean future = false;
    if (!adminDrain && pools().isPoolNode(e.pod())) {
      future = nodeDown(e.pod());
    }
    if (p.isAlive()) {
      stop(p, Duration.ofSeconds(10)); // ours (recorded and verified), whatever node-down did
    }
    done.add("stopped orphan slurmd for " + e.pod() + " (pid " + e.pid() + ")");
    if (adminDrain) {
      done.add(adminDrainKept(node));
    } else if (tandemDrain(node)) {
      liftedTandemDrain(node, future);
    }
  }

  private void cleanPoolNode(SlurmNode n) throws InterruptedException {
    if (adminDrain(n)) {
      done.add(adminDrainKept(n));
      return;
    }
    Optional<Long> slurmd = runningSlurmd(n.name());
    if (slurmd.isPresent()) {
      if (tandemDrain(n)) {
        liftedTandemDrain(n, false);
      }
      done.add(
          n.name()
              + " has a slurmd this stack did not start (pid "
              + slurmd.get()
              + "): left running");
      return;
    }
    takenDown.add(n.name());
    boolean future = nodeDown(n.name());
    done.add(
        future
            ? "returned " + n.name() + " to FUTURE (no slurmd ran for it)"
            : "could not return " + n.name() + " to FUTURE (see the log of slurm-local.sh)");
    if (tandemDrain(n)) {
      liftedTandemDrain(n, future);
    }
  }

  /** {@code slurm-local.sh node-down}: jobs end, slurmd stops, State=FUTURE; true if it did. */
  private boolean nodeDown(String node) {
    return LocalSlurmScript.run(slurm.script(), scriptEnv, NODE_DOWN_TIMEOUT, "node-down", node)
            .exitCode()
        == 0;
  }

  /** A node returned to FUTURE has no drain any more; otherwise the drain is lifted here. */
  private void liftedTandemDrain(SlurmNode n, boolean future) {
    if (!future) {
      client.undrain(n.name());
    }
    done.add("lifted Tandem drain on " + n.name() + " (" + n.reason() + ")");
  }

  /**
   * An administrator's drain (any reason not Tandem's). Its node is never returned to FUTURE: that
   * clears the drain, and a drain set again on a FUTURE node comes back without its reason once the
   * node registers (Slurm 22.05). Left as it is, the node keeps flag and reason; without its slurmd
   * Slurm marks it DOWN as well, until the administrator resumes it.
   */
  private static boolean adminDrain(SlurmNode n) {
    return n != null && n.drainFlag() && !tandemDrain(n);
  }

  private static boolean tandemDrain(SlurmNode n) {
    return n != null && n.drainFlag() && n.reason() != null && n.reason().startsWith(TANDEM_PREFIX);
  }

  private static String adminDrainKept(SlurmNode n) {
    return "left the administrator's drain on "
        + n.name()
        + " ("
        + (n.reason() == null ? "no reason given" : n.reason())
        + ")";
  }

  /**
   * The slurmd of {@code node} per its pid file, if it runs for this Slurm (as the script checks).
   */
  private Optional<Long> runningSlurmd(String node) {
    Path dir = slurm.envFile().getParent().toAbsolutePath();
    return readPid(dir.resolve("run").resolve("slurmd-" + node + ".pid"))
        .filter(pid -> commandLine(pid).contains(dir + "/"));
  }

  private SlurmPools pools() {
    return SlurmPools.parse(slurm.env().getOrDefault("TANDEM_SLURM_POOLS", ""));
  }

  private static void stop(ProcessHandle p, Duration grace) throws InterruptedException {
    p.destroy();
    try {
      p.onExit().get(grace.toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
      p.destroyForcibly();
      try {
        p.onExit().get(10, TimeUnit.SECONDS);
      } catch (java.util.concurrent.TimeoutException
          | java.util.concurrent.ExecutionException ignored) {
        // reported by the caller's next check at worst
      }
    }
  }

  private static Optional<Long> readPid(Path file) {
    try {
      String s = Files.readString(file, StandardCharsets.UTF_8).trim();
      return s.matches("\\d{1,10}") ? Optional.of(Long.parseLong(s)) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** {@code /proc/<pid>/cmdline} with spaces for NULs; empty if unreadable. */
  static String commandLine(long pid) {
    try {
      byte[] b = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
      return new String(b, StandardCharsets.UTF_8).replace('\0', ' ');
    } catch (IOException e) {
      return "";
    }
  }
}
