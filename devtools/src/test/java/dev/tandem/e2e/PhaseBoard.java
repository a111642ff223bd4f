package dev.tandem.e2e;

import dev.tandem.workflows.model.NodeSetSnapshot;
import dev.tandem.workflows.model.NodeSummary;
import java.time.Duration;
import java.time.Instant;
import java.util.StringJoiner;

/**
 * The node phases of one NodeSet as its workflow last answered, refreshed about every second in the
 * background, for the record of each kill. Best effort: while no worker runs, the last answer
 * stays, and {@link #describe()} says how old it is.
 */
final class PhaseBoard implements AutoCloseable {
  private final TemporalProbe temporal;
  private final String nodeSet;
  private final Thread thread;
  private volatile boolean closed;
  private volatile String phases = "(none yet)";
  private volatile Instant at;

  PhaseBoard(TemporalProbe temporal, String nodeSet) {
    this.temporal = temporal;
    this.nodeSet = nodeSet;
    this.thread = new Thread(this::loop, "crash-suite-phases");
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /** {@code e2e-0 ready, e2e-1 draining (1.2s old)}. */
  String describe() {
    Instant t = at;
    String age =
        t == null
            ? ""
            : String.format(" (%.1fs old)", Duration.between(t, Instant.now()).toMillis() / 1000.0);
    return phases + age;
  }

  private void loop() {
    while (!closed) {
      try {
        NodeSetSnapshot s = temporal.nodeSet(nodeSet);
        StringJoiner j = new StringJoiner(", ");
        for (NodeSummary n : s.nodes()) {
          j.add(n.pod() + " " + n.phase().label());
        }
        phases = j.toString();
        at = Instant.now();
      } catch (RuntimeException e) {
        // no worker right now: keep the last answer
      }
      try {
        Thread.sleep(1000);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    thread.interrupt();
  }
}
