package dev.tandem.cli;

import dev.tandem.workflows.schedule.PodGroupStatus;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** {@code tandem history} for a gang: its group workflow's timeline, headed by where it stands. */
final class GroupHistory {
  private GroupHistory() {}

  static int print(
      TemporalSession session, PodHistory.Target t, PrintWriter out, Output.Format format) {
    PodGroupStatus s =
        PodLookup.groupStatus(session, t.workflowId())
            .orElseThrow(
                () ->
                    new CliException(
                        "no scheduling workflow "
                            + t.workflowId()
                            + " for "
                            + t
                            + " (no member seen by the Tandem watcher yet, or not a group)"));
    Output.history(out, format, header(t, s), "PHASE", s.timeline());
    return 0;
  }

  /** {@code group NS/NAME: PHASE, job ID STATE, N of SIZE members: a on k1, b on k2; problem}. */
  static String header(PodHistory.Target t, PodGroupStatus s) {
    StringBuilder b = new StringBuilder();
    b.append(t).append(": ").append(s.phase().label());
    if (s.jobId() != 0) {
      b.append(", job ").append(s.jobId());
      if (s.jobState() != null) {
        b.append(' ').append(s.jobState());
      }
    }
    List<String> members = new ArrayList<>();
    for (PodGroupStatus.MemberStatus m : s.members()) {
      String name = m.pod().substring(m.pod().indexOf('/') + 1);
      members.add(m.k8sNode() == null ? name : name + " on " + m.k8sNode());
    }
    b.append(", ").append(members.size()).append(" member(s)");
    if (s.size() > 0) {
      b.append(" of ").append(s.size());
    }
    if (!members.isEmpty()) {
      b.append(": ").append(String.join(", ", members));
    }
    if (s.problem() != null) {
      b.append("; problem: ").append(s.problem());
    }
    return b.toString();
  }
}
