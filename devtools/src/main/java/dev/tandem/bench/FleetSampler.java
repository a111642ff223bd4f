package dev.tandem.bench;

import dev.tandem.slurm.fake.FakeSlurmrestd.NodeLook;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches a simulated fleet from outside Tandem, the way an operator would judge it: every {@code
 * every}, every Slurm node's state read in-process from the simulated slurmrestd (a listing over
 * HTTP cost the shared cores ~3 MB of JSON per sample at 5,000 nodes) plus the simulated kubelet's
 * pod cache. A node is <em>in service</em> when its pod is Running, Ready and not being deleted,
 * and Slurm knows its node and shows it neither drained, down nor not responding (the docs'
 * "available", concepts.md). Unknown (a failed listing) counts as nothing: the sample is skipped,
 * never taken as in service.
 *
 * <p>It keeps: the number of nodes out of service in the last sample and the largest since {@link
 * #resetMax}; each node's out-of-service spells (start and end, at sample resolution); and the
 * first time each node was seen with Slurm's DRAIN flag since {@link #watchDrains}.
 */
final class FleetSampler implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(FleetSampler.class);

  private final Supplier<Map<String, NodeLook>> slurm;
  private final SimKubelet kubelet;
  private final String namespace;
  private final List<String> pods;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "fleet-sampler");
            t.setDaemon(true);
            return t;
          });

  private volatile int out = -1;
  private volatile int maxOut;
  private volatile long samples;
  private final Map<String, Long> outSince = new HashMap<>();
  private final List<Long> spellsNanos = new ArrayList<>();
  private final Map<String, Long> drainSeen = new ConcurrentHashMap<>();
  private volatile boolean watchingDrains;
  private volatile String whyOut = "";

  FleetSampler(
      Supplier<Map<String, NodeLook>> slurm,
      SimKubelet kubelet,
      String namespace,
      List<String> pods) {
    this.slurm = slurm;
    this.kubelet = kubelet;
    this.namespace = namespace;
    this.pods = List.copyOf(pods);
  }

  void start(Duration every) {
    timer.scheduleWithFixedDelay(this::sampleQuietly, 0, every.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Stops sampling (e.g. for the at-rest window, so the bench's reads are not counted). */
  void stop() {
    timer.shutdownNow();
    try {
      timer.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void sampleQuietly() {
    try {
      sample();
    } catch (RuntimeException e) {
      log.warn("fleet sample failed (skipped): {}", e.toString());
    }
  }

  private void sample() {
    Map<String, NodeLook> byName = slurm.get();
    long now = System.nanoTime();
    int o = 0;
    StringBuilder why = new StringBuilder();
    synchronized (this) {
      for (String p : pods) {
        NodeLook n = byName.get(p);
        if (watchingDrains && n != null && n.drain()) {
          drainSeen.putIfAbsent(p, now);
        }
        boolean serving =
            n != null
                && !n.drain()
                && !n.down()
                && !n.notResponding()
                && kubelet.podServing(namespace, p);
        if (!serving) {
          o++;
          if (why.length() < 400) {
            why.append(' ').append(p).append('=').append(reason(n, p));
          }
          outSince.putIfAbsent(p, now);
        } else {
          Long since = outSince.remove(p);
          if (since != null) {
            spellsNanos.add(now - since);
          }
        }
      }
      out = o;
      whyOut = why.toString();
      maxOut = Math.max(maxOut, o);
      samples++;
    }
  }

  private String reason(NodeLook n, String pod) {
    if (n == null) {
      return "no-slurm-node";
    }
    if (n.drain() || n.down() || n.notResponding()) {
      return "slurm:" + n.flags();
    }
    return "pod:" + kubelet.describe(namespace, pod);
  }

  /** Which nodes the last sample counted out, and why (for progress lines). */
  String whyOut() {
    return whyOut;
  }

  /** Nodes out of service in the last sample; -1 before the first. */
  int out() {
    return out;
  }

  long samples() {
    return samples;
  }

  synchronized int maxOut() {
    return maxOut;
  }

  /** Starts a new measurement: max and spells from now on (open spells are dropped). */
  synchronized void resetMax() {
    maxOut = Math.max(0, out);
    spellsNanos.clear();
    outSince.clear();
  }

  /** Out-of-service spells that ended since {@link #resetMax}, in nanoseconds. */
  synchronized List<Long> spells() {
    return List.copyOf(spellsNanos);
  }

  /** Records from now on the first sample that shows each node drained. */
  void watchDrains() {
    drainSeen.clear();
    watchingDrains = true;
  }

  Map<String, Long> drainSeen() {
    return Map.copyOf(drainSeen);
  }

  /** Waits for the next sample to be taken (so figures after a change are fresh). */
  void awaitNextSample(Duration limit) throws InterruptedException {
    long s = samples;
    long end = System.nanoTime() + limit.toNanos();
    while (samples <= s + 1 && System.nanoTime() < end) {
      Thread.sleep(20);
    }
  }

  @Override
  public void close() {
    stop();
  }
}
