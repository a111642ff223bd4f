package dev.tandem.dev;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
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
    String list = String.join(",", nodes);
    List<String> jobs = running(list);
    if (jobs.isEmpty()) {
      return List.of();
    }
    run("scancel", "--nodelist", list);
    long end = System.nanoTime() + wait.toNanos();
    List<String> left = jobs;
    while (!left.isEmpty() && System.nanoTime() < end) {
      Thread.sleep(200);
      left = running(list);
    }
    List<String> out = new ArrayList<>();
    out.add(
        "cancelled " + jobs.size() + " job(s) on the stack's nodes: " + String.join(", ", jobs));
    if (!left.isEmpty()) {
      out.add(
          "still ending after "
              + wait.toSeconds()
              + " s (their processes may outlive the stack): "
              + String.join(", ", left));
    }
    return out;
  }

  /** {@code <id> (<nodes>)} of every job running, suspended or completing on {@code nodes}. */
  private List<String> running(String nodes) throws InterruptedException {
    String out = run("squeue", "-h", "-w", nodes, "-t", "R,S,CG", "-o", "%A (%N)");
    return Arrays.stream(out.split("\n")).map(String::trim).filter(s -> !s.isEmpty()).toList();
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
