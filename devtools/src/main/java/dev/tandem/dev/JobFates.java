package dev.tandem.dev;

import dev.tandem.slurm.SlurmJob;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What became of the jobs that ran on nodes a stack had to take down: after a crash, the new stack
 * stops the slurmds the crashed one left ({@link Leftovers}), and Slurm requeues or ends the jobs
 * that ran on them. The stack says so, one sentence per job, instead of leaving a job to start
 * again silently (or vanish).
 */
final class JobFates {
  private JobFates() {}

  /** The jobs of {@code jobs} that may hold one of {@code nodes} (running, completing, ...). */
  static List<SlurmJob> on(Set<String> nodes, Collection<SlurmJob> jobs) {
    List<SlurmJob> out = new ArrayList<>();
    for (SlurmJob j : jobs) {
      if (!SlurmJob.RELEASED_STATES.contains(j.state())
          && j.nodeList().stream().anyMatch(nodes::contains)) {
        out.add(j);
      }
    }
    return out;
  }

  /**
   * One sentence per job of {@code before} (jobs that held the nodes taken down), from what Slurm
   * lists now ({@code after}, by id).
   */
  static List<String> report(List<SlurmJob> before, Map<Long, SlurmJob> after) {
    List<String> out = new ArrayList<>();
    for (SlurmJob was : before) {
      String job = "job " + was.id() + (blank(was.name()) ? "" : " (" + was.name() + ")");
      String ran = job + ", which ran on " + was.nodes() + ",";
      SlurmJob now = after.get(was.id());
      if (now == null) {
        out.add(ran + " is no longer listed by Slurm: lost");
      } else if (requeued(was, now) && now.state().equals("PENDING")) {
        out.add("Slurm requeued " + ran + " it waits to run again (" + reason(now) + ")");
      } else if (requeued(was, now)) {
        out.add(
            "Slurm requeued "
                + ran
                + " it is "
                + now.state()
                + (now.nodes().isEmpty() ? "" : " on " + now.nodes())
                + " again");
      } else if ("COMPLETED".equals(now.state())) {
        out.add(ran + " ended COMPLETED");
      } else if (SlurmJob.RELEASED_STATES.contains(now.state())) {
        out.add(ran + " ended " + now.state() + ": lost");
      } else {
        out.add(
            ran + " is still " + now.state() + (now.nodes().isEmpty() ? "" : " on " + now.nodes()));
      }
    }
    return out;
  }

  private static boolean requeued(SlurmJob was, SlurmJob now) {
    return now.restartCount() > was.restartCount() || now.stateFlags().contains("REQUEUED");
  }

  private static String reason(SlurmJob j) {
    return "PENDING"
        + (blank(j.stateReason()) || "None".equals(j.stateReason())
            ? ""
            : ", reason " + j.stateReason());
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }
}
