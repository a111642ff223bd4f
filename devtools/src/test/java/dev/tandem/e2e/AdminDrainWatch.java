package dev.tandem.e2e;

import dev.tandem.slurm.SlurmNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The administrator drains a scenario holds, for {@link InvariantMonitor}: between {@link #drained}
 * and {@link #lifted} every poll must show the node listed, with the DRAIN flag and the
 * administrator's reason. That holds across a replacement of the node's pod too: Slurm keeps a
 * node's record (flags, reason) while its slurmd restarts, and Tandem lifts or rewrites only {@code
 * tandem:} reasons. Only removing the node from Slurm (on 22.05 a return to FUTURE, which Tandem
 * does when the NodeSet no longer wants the node) drops the drain with it; a scenario resumes such
 * a node before it scales it away.
 *
 * <p>A poll is judged only against drains declared before it started: one already on its way when
 * the administrator's {@code scontrol} returned may carry Slurm's state from before it.
 */
final class AdminDrainWatch {
  private record Drain(String reason, long since) {}

  private final Map<String, Drain> drains = new ConcurrentHashMap<>();

  /** The administrator has drained {@code node} with {@code reason} (their scontrol returned). */
  void drained(String node, String reason) {
    drains.put(node, new Drain(reason, System.nanoTime()));
  }

  /** The administrator is about to resume {@code node}: from now on its drain may go. */
  void lifted(String node) {
    drains.remove(node);
  }

  /**
   * The breaches a poll shows.
   *
   * @param nodes Slurm's nodes as the poll read them
   * @param pollStart {@link System#nanoTime()} when the poll started
   */
  List<String> breaches(Map<String, SlurmNode> nodes, long pollStart) {
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, Drain> e : drains.entrySet()) {
      Drain d = e.getValue();
      if (d.since() - pollStart > 0) {
        continue; // this poll may have read Slurm before the administrator's drain
      }
      SlurmNode n = nodes.get(e.getKey());
      if (!drains.containsKey(e.getKey())) {
        continue; // lifted by the scenario meanwhile
      }
      if (n == null) {
        out.add("administrator drain on " + e.getKey() + " lost: Slurm no longer lists it");
      } else if (!n.drainFlag() || !Objects.equals(trim(n.reason()), trim(d.reason()))) {
        out.add(
            "administrator drain on "
                + e.getKey()
                + " lifted or replaced: Slurm shows "
                + n.state()
                + n.flags()
                + " reason "
                + n.reason());
      }
    }
    return out;
  }

  private static String trim(String s) {
    return s == null ? "" : s.trim();
  }
}
