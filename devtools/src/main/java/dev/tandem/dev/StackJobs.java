package dev.tandem.dev;

import dev.tandem.slurm.Hostlist;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * When a stack stops (Ctrl-C, SIGTERM), the jobs still on its slurmd pods are cancelled, and the
 * stack waits (bounded) until Slurm has ended them, before its kubelet stops the slurmds: a slurmd
 * stopped under a running job leaves the job's slurmstepd and processes behind, and Slurm would
 * requeue the job onto whatever node comes next. Cancelling rather than waiting for the jobs keeps
 * Ctrl-C prompt; the console names every job cancelled.
 *
 * <p>Uses Slurm's command line ({@code squeue}, {@code scancel}), which talks to slurmctld, so it
 * works while slurmrestd is away.
 */
final class StackJobs {
  private final Map<String, String> slurmEnv;
  private final Duration wait;

  /**
   * @param slurmEnv the Slurm env file's keys ({@code SLURM_CONF})
   * @param wait how long to wait for the cancelled jobs to end
   */
  StackJobs(Map<String, String> slurmEnv, Duration wait) {
    this.slurmEnv = slurmEnv;
    this.wait = wait;
  }

  /**
   * Cancels the jobs on {@code nodes} and waits for them to end; returns what it did, one sentence
   * (empty: no job ran there).
   */
  List<String> cancelOn(List<String> nodes) throws InterruptedException {
    if (nodes.isEmpty()) {
      return List.of();
    }
    Set<String> on = Set.copyOf(nodes);
    Map<String, String> jobs = running(on);
    if (jobs.isEmpty()) {
      return List.of();
    }
    List<String> cancel = new ArrayList<>(List.of("scancel"));
    cancel.addAll(jobs.keySet());
    run(cancel.toArray(String[]::new));
    long end = System.nanoTime() + wait.toNanos();
    Map<String, String> left = jobs;
    while (!left.isEmpty() && System.nanoTime() < end) {
      Thread.sleep(200);
      left = running(on);
    }
    List<String> out = new ArrayList<>();
    out.add("cancelled " + jobs.size() + " job(s) on the stack's nodes: " + named(jobs));
    if (!left.isEmpty()) {
      out.add(
          "still ending after "
              + wait.toSeconds()
              + " s (their processes may outlive the stack): "
              + named(left));
    }
    return out;
  }

  private static String named(Map<String, String> jobs) {
    List<String> out = new ArrayList<>();
    jobs.forEach((id, where) -> out.add(id + " (" + where + ")"));
    return String.join(", ", out);
  }

  /**
   * Job id to node list of every job running, suspended or completing on one of {@code nodes}.
   * Filtered here, not with {@code squeue -w}, which fails whole on a node Slurm does not know (a
   * dynamic node whose slurmd has not registered).
   */
  private Map<String, String> running(Set<String> nodes) throws InterruptedException {
    Map<String, String> out = new TreeMap<>();
    for (String line : run("squeue", "-h", "-t", "R,S,CG", "-o", "%A %N").split("\n")) {
      String[] f = line.trim().split("\\s+", 2);
      if (f.length == 2 && Hostlist.expand(f[1]).stream().anyMatch(nodes::contains)) {
        out.put(f[0], f[1]);
      }
    }
    return out;
  }

  private String run(String... cmd) throws InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().put("SLURM_CONF", slurmEnv.get("SLURM_CONF"));
    try {
      Process p = pb.start();
      if (!p.waitFor(15, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException(String.join(" ", cmd) + " did not end within 15 s");
      }
      String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (p.exitValue() != 0) {
        throw new IllegalStateException(String.join(" ", cmd) + " failed: " + text.trim());
      }
      return text;
    } catch (IOException e) {
      throw new IllegalStateException(String.join(" ", cmd) + ": " + e.getMessage(), e);
    }
  }
}
