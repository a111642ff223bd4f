package dev.tandem.cli;

import dev.tandem.workflows.model.NodeStatus;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * Polls a node's status until a condition holds, printing each change; bounded by a timeout. A
 * worker that does not answer for a while (it is being restarted) is reported once and waited for.
 */
final class Waiter {
  private Waiter() {}

  static final Duration POLL = Duration.ofMillis(500);

  static NodeStatus until(
      PrintWriter out,
      TemporalSession session,
      NodeLookup.Target t,
      Duration timeout,
      Predicate<NodeStatus> done,
      String what)
      throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    String last = null;
    while (true) {
      NodeStatus s;
      try {
        s = NodeLookup.status(session, t);
      } catch (TemporalSession.NoAnswer e) {
        String line = "no answer: " + e.getMessage();
        if (!line.equals(last)) {
          out.printf("  %s: %s (still waiting)%n", t, line);
          out.flush();
          last = line;
        }
        if (System.nanoTime() > end) {
          throw new CliException("gave up waiting after " + timeout.toSeconds() + "s: " + line);
        }
        Thread.sleep(POLL.toMillis());
        continue;
      }
      String line =
          s.phase().label()
              + (s.slurm() == null ? "" : ", slurm " + s.slurm().summary())
              + (Boolean.TRUE.equals(s.busy()) ? ", waiting for jobs" : "")
              + (s.problem() == null ? "" : ", problem: " + s.problem());
      if (!Objects.equals(line, last)) {
        out.printf("  %s: %s%n", t, line);
        out.flush();
        last = line;
      }
      if (done.test(s)) {
        out.printf("%s is %s%n", t, what);
        return s;
      }
      if (System.nanoTime() > end) {
        throw new CliException(
            "gave up waiting after " + timeout.toSeconds() + "s: " + t + " is " + line);
      }
      Thread.sleep(POLL.toMillis());
    }
  }
}
