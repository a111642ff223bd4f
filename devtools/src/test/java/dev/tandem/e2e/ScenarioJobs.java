package dev.tandem.e2e;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * The scenario's Slurm jobs: each is declared to the {@link InvariantMonitor} once it runs, and
 * declared cancelled just before the scenario cancels it, so that any other end is a breach.
 */
final class ScenarioJobs {
  private final E2EStack e2e;
  private final ClusterView view;
  private final InvariantMonitor monitor;
  private final Map<Long, String> running = new LinkedHashMap<>();
  private final Set<Long> all = new LinkedHashSet<>();

  ScenarioJobs(E2EStack e2e, ClusterView view, InvariantMonitor monitor) {
    this.e2e = e2e;
    this.view = view;
    this.monitor = monitor;
  }

  /**
   * Cancels jobs of an earlier run that asked for or run on the NodeSet's nodes ({@code prefix}*):
   * an earlier test JVM that was killed leaves them queued (Slurm requeues them when their node
   * goes), and one starting on a node of this run would hold it busy for an hour. This Slurm and
   * its {@code prefix} pool belong to the tests. Returns what it cancelled.
   */
  java.util.List<String> cancelStrays(String prefix) throws IOException, InterruptedException {
    java.util.List<String> cancelled = new ArrayList<>();
    String out = e2e.run(java.util.List.of("squeue", "-h", "-o", "%i|%n|%N"));
    for (String line : out.split("\n")) {
      String[] f = line.trim().split("\\|", -1);
      if (f.length == 3 && (f[1].startsWith(prefix) || f[2].startsWith(prefix))) {
        e2e.scancel(Long.parseLong(f[0]));
        cancelled.add(f[0] + " (" + (f[2].isEmpty() ? "pending for " + f[1] : "on " + f[2]) + ")");
      }
    }
    return cancelled;
  }

  /** {@code sbatch -w node} a job of an hour; returns its id once Slurm runs it. */
  long submit(String node, Duration limit) throws Exception {
    long id = e2e.sbatch(node, 3600);
    all.add(id);
    running.put(id, node);
    view.await("job " + id + " running on " + node, limit, () -> view.jobRunning(id));
    monitor.jobRunning(id, node);
    return id;
  }

  /** The latest job submitted on {@code node} and not cancelled yet, or -1. */
  long on(String node) {
    long id = -1;
    for (Map.Entry<Long, String> j : running.entrySet()) {
      if (j.getValue().equals(node)) {
        id = j.getKey();
      }
    }
    return id;
  }

  void cancel(long id) throws Exception {
    monitor.jobCancelRequested(id);
    e2e.scancel(id);
    running.remove(id);
  }

  void cancelRemaining() throws Exception {
    for (Long id : new ArrayList<>(running.keySet())) {
      cancel(id);
    }
  }

  /** Cancels every job the scenario submitted (cleaning up whatever happened). */
  void cancelAllQuietly() {
    for (Long id : all) {
      try {
        e2e.scancel(id);
      } catch (IOException | InterruptedException | RuntimeException e) {
        // already gone
      }
    }
  }
}
