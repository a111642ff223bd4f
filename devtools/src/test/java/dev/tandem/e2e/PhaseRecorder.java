package dev.tandem.e2e;

import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeSummary;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Records, from the outside, every change of each node's phase and Slurm state as its NodeSet's
 * {@code status} query shows them (what {@code tandem status} prints), with the time it was first
 * seen; fault tests then ask what changed while a fault lasted. Queries that fail (a worker that
 * cannot reach Temporal answers none) are counted and skipped.
 */
final class PhaseRecorder implements AutoCloseable {
  /** A node's phase and Slurm state, first seen at {@code atNanos} ({@link System#nanoTime()}). */
  record Sighting(long atNanos, String pod, NodePhase phase, String slurmState) {
    @Override
    public String toString() {
      return pod + " " + phase.label() + " " + slurmState;
    }
  }

  private final E2EStack e2e;
  private final List<String> nodeSets;
  private final Duration every;
  private final List<Sighting> changes = Collections.synchronizedList(new ArrayList<>());
  private final Map<String, Sighting> last = new HashMap<>();
  private volatile long failedQueries;
  private volatile boolean closed;
  private Thread thread;

  PhaseRecorder(E2EStack e2e, List<String> nodeSets, Duration every) {
    this.e2e = e2e;
    this.nodeSets = List.copyOf(nodeSets);
    this.every = every;
  }

  PhaseRecorder start() {
    thread = new Thread(this::loop, "phase-recorder");
    thread.setDaemon(true);
    thread.start();
    return this;
  }

  private void loop() {
    while (!closed) {
      for (String set : nodeSets) {
        try {
          for (NodeSummary n : e2e.nodeSetStatus(set).nodes()) {
            seen(n);
          }
        } catch (RuntimeException e) {
          failedQueries++;
        }
      }
      try {
        Thread.sleep(every.toMillis());
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private void seen(NodeSummary n) {
    Sighting s = new Sighting(System.nanoTime(), n.pod(), n.phase(), n.slurmState());
    Sighting before = last.get(n.pod());
    if (before == null
        || before.phase() != s.phase()
        || !Objects.equals(before.slurmState(), s.slurmState())) {
      last.put(n.pod(), s);
      changes.add(s);
    }
  }

  /** Every change first seen in [{@code fromNanos}, {@code toNanos}]. */
  List<Sighting> between(long fromNanos, long toNanos) {
    synchronized (changes) {
      return changes.stream()
          .filter(s -> s.atNanos() - fromNanos >= 0 && toNanos - s.atNanos() >= 0)
          .toList();
    }
  }

  /** Changes in the window to a phase outside {@code allowed}. */
  List<Sighting> phasesOutside(long fromNanos, long toNanos, Set<NodePhase> allowed) {
    return between(fromNanos, toNanos).stream().filter(s -> !allowed.contains(s.phase())).toList();
  }

  /**
   * Changes in the window showing a node as {@code unknown} to Slurm (not listed): while Slurm
   * answers nothing, or half an answer, no node may be taken for gone.
   */
  List<Sighting> unknownToSlurm(long fromNanos, long toNanos) {
    return between(fromNanos, toNanos).stream()
        .filter(s -> "unknown".equals(s.slurmState()))
        .toList();
  }

  /**
   * The most of {@code pods} out of phase ready at one time during the window (counting from the
   * state they were in when it began): what a rolling update's maxUnavailable bounds, as Tandem
   * itself reports it (the invariant monitor reads Slurm, which a Slurm fault hides from it).
   */
  int maxNotReady(Set<String> pods, long fromNanos, long toNanos) {
    Map<String, NodePhase> now = new HashMap<>();
    int max = 0;
    boolean started = false;
    synchronized (changes) {
      for (Sighting s : changes) {
        if (s.atNanos() - toNanos > 0) {
          break;
        }
        if (!started && s.atNanos() - fromNanos >= 0) {
          started = true;
          max = Math.max(max, notReady(now));
        }
        if (pods.contains(s.pod())) {
          now.put(s.pod(), s.phase());
          if (started) {
            max = Math.max(max, notReady(now));
          }
        }
      }
    }
    return Math.max(max, notReady(now));
  }

  private static int notReady(Map<String, NodePhase> phases) {
    return (int) phases.values().stream().filter(p -> p != NodePhase.READY).count();
  }

  long failedQueries() {
    return failedQueries;
  }

  @Override
  public void close() {
    closed = true;
    if (thread != null) {
      thread.interrupt();
    }
  }
}
