package dev.tandem.slurm.bench;

import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmClient.Listing;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmNode;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What one poll of the Slurm watcher costs at fleet size: the calls {@code SlurmPoller} makes per
 * cycle (an incremental node listing and an incremental job listing, both with {@code
 * update_time}), measured through a {@link CountingTransport} against a real or simulated
 * slurmrestd.
 *
 * <ol>
 *   <li><b>Full resync</b>: both listings without {@code update_time}, {@code samples} times.
 *   <li><b>Unchanged</b>: both listings with the last {@code update_time} while nothing changes in
 *       Slurm, one per cycle interval.
 *   <li><b>Changing</b>: each cycle first drains a fresh set of {@code changesPerCycle} nodes (not
 *       timed; the drains go through the client like Tandem's), waits out the rest of the cycle
 *       interval, then polls incrementally. Every node drained here is undrained at the end.
 * </ol>
 *
 * <p>The cycle interval matters: slurmctld compares {@code update_time} in whole seconds, so polls
 * closer than a second apart would measure its rounding, not a poll. For each phase the bench
 * prints latency p50/p99 (both listings together), bytes and requests per poll, and items returned
 * per poll.
 */
public final class PollCostBench {
  /** One poll: its wall time, the answers' bytes, the requests it took and the items listed. */
  public record Sample(double ms, long bytes, long requests, int nodes, int jobs) {}

  /** The three phases' samples. */
  public record Result(List<Sample> full, List<Sample> unchanged, List<Sample> changing) {}

  private final SlurmClient client;
  private final CountingTransport counter;
  private final List<String> nodeNames;
  private final Duration cycle;
  private final PrintWriter out;
  private Instant nodesSince;
  private Instant jobsSince;

  /**
   * @param client a client whose transport is {@code counter}
   * @param nodeNames nodes the changing phase may drain (drained nodes are undrained at the end)
   * @param cycle time between polls (the product's poll interval is 2 s)
   */
  public PollCostBench(
      SlurmClient client,
      CountingTransport counter,
      List<String> nodeNames,
      Duration cycle,
      PrintWriter out) {
    this.client = client;
    this.counter = counter;
    this.nodeNames = List.copyOf(nodeNames);
    this.cycle = cycle;
    this.out = out;
  }

  public Result run(int samples, int cycles, int changesPerCycle) throws InterruptedException {
    if (changesPerCycle < 1 || (long) changesPerCycle * cycles > nodeNames.size()) {
      throw new IllegalArgumentException(
          "need "
              + (long) changesPerCycle * cycles
              + " distinct nodes to drain ("
              + cycles
              + " cycles x "
              + changesPerCycle
              + "), have "
              + nodeNames.size());
    }
    List<Sample> full = new ArrayList<>();
    for (int i = 0; i < samples; i++) {
      full.add(poll(true));
    }
    settle(Duration.ofSeconds(90));
    List<Sample> unchanged = new ArrayList<>();
    for (int i = 0; i < samples; i++) {
      Thread.sleep(cycle.toMillis());
      unchanged.add(poll(false));
    }
    List<Sample> changing = new ArrayList<>();
    List<String> drained = new ArrayList<>();
    try {
      for (int c = 0; c < cycles; c++) {
        long start = System.nanoTime();
        for (String n : nodeNames.subList(c * changesPerCycle, (c + 1) * changesPerCycle)) {
          client.drain(n, "tandem:bench: poll cost");
          drained.add(n);
        }
        long left = cycle.toMillis() - (System.nanoTime() - start) / 1_000_000;
        Thread.sleep(Math.max(1_100, left)); // at least a whole second: update_time's grain
        changing.add(poll(false));
      }
    } finally {
      undrain(drained);
    }
    return new Result(full, unchanged, changing);
  }

  /**
   * Waits (bounded) until an incremental poll lists nothing: a freshly started Slurm changes its
   * nodes for a while (registration, nodes without a slurmd going DOWN at SlurmdTimeout), and the
   * idle phase must measure a cluster at rest. Says how long that took, or that it never settled.
   */
  private void settle(Duration limit) throws InterruptedException {
    long t0 = System.nanoTime();
    long deadline = t0 + limit.toNanos();
    int polls = 0;
    while (System.nanoTime() < deadline) {
      Thread.sleep(cycle.toMillis());
      polls++;
      Sample s = poll(false);
      if (s.nodes() == 0 && s.jobs() == 0) {
        out.printf(
            Locale.ROOT,
            "at rest after %.1f s (%d polls)%n",
            (System.nanoTime() - t0) / 1e9,
            polls);
        return;
      }
    }
    out.printf(
        Locale.ROOT,
        "note: Slurm still listed changes after %d s (%d polls); idle figures include them%n",
        limit.toSeconds(),
        polls);
  }

  /**
   * Lifts the bench's drains. Slurm 22.05 refuses UNDRAIN on a node without a slurmd (DOWN), so
   * such nodes are resumed instead; what still fails is counted, never thrown over the figures.
   */
  private void undrain(List<String> drained) {
    int failed = 0;
    for (String n : drained) {
      try {
        client.undrain(n);
      } catch (RuntimeException e) {
        try {
          client.resume(n);
        } catch (RuntimeException again) {
          failed++;
        }
      }
    }
    if (failed > 0) {
      out.printf(
          Locale.ROOT,
          "note: %d of %d drained nodes could not be undrained%n",
          failed,
          drained.size());
    }
  }

  private Sample poll(boolean fullListing) {
    counter.takeCounts();
    long t0 = System.nanoTime();
    Listing<SlurmNode> nodes = client.listNodes(fullListing ? null : nodesSince);
    Listing<SlurmJob> jobs = client.listJobs(fullListing ? null : jobsSince);
    double ms = (System.nanoTime() - t0) / 1e6;
    CountingTransport.Counts c = counter.takeCounts();
    nodesSince = nodes.updateTime();
    jobsSince = jobs.updateTime();
    return new Sample(ms, c.bytes(), c.requests(), nodes.items().size(), jobs.items().size());
  }

  /** Prints one line per phase, e.g. for docs/benchmarks.md. */
  public void print(String target, int nodes, Result r) {
    out.printf(
        Locale.ROOT,
        "%s, %d nodes; per poll (nodes + jobs listing):%n%-22s %10s %10s %9s %9s %9s%n",
        target,
        nodes,
        "phase",
        "p50 ms",
        "p99 ms",
        "KiB p50",
        "requests",
        "nodes");
    line("full resync", r.full());
    line("incremental, idle", r.unchanged());
    line("incremental, changing", r.changing());
    out.flush();
  }

  private void line(String what, List<Sample> s) {
    if (s.isEmpty()) {
      out.printf(Locale.ROOT, "%-22s n=0%n", what);
      return;
    }
    List<Double> ms = s.stream().map(Sample::ms).sorted().toList();
    List<Double> kib = s.stream().map(x -> x.bytes() / 1024.0).sorted().toList();
    List<Double> nodes = s.stream().map(x -> (double) x.nodes()).sorted().toList();
    double requests = s.stream().mapToLong(Sample::requests).average().orElse(0);
    out.printf(
        Locale.ROOT,
        "%-22s %10.1f %10.1f %9.1f %9.1f %9.0f%n",
        what,
        Latencies.percentile(ms, 50),
        Latencies.percentile(ms, 99),
        Latencies.percentile(kib, 50),
        requests,
        Latencies.percentile(nodes, 50));
  }
}
