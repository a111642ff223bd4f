package dev.tandem.workflows.schedule;

import dev.tandem.workflows.schedule.PodGroupState.Member;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What a gang's workflow shows of itself: its status (the {@code status} query that {@code tandem
 * pods} reads) and the one-line summary the Temporal UI shows. Read only: neither changes the state
 * or issues a command.
 */
final class GroupSummary {
  private GroupSummary() {}

  /** The {@code status} query's answer. */
  static PodGroupStatus status(PodGroupInput input, PodGroupState s) {
    List<PodGroupStatus.MemberStatus> ms = new ArrayList<>();
    for (Member m : s.members.values()) {
      ms.add(
          new PodGroupStatus.MemberStatus(
              m.ref(),
              m.request.uid(),
              m.live(),
              s.chosen.contains(m.request.name()),
              m.slurmNode,
              m.k8sNode,
              m.said == null ? null : m.said.substring(m.said.indexOf('|') + 1)));
    }
    return new PodGroupStatus(
        input.ref(),
        s.phase,
        Instant.ofEpochMilli(s.phaseSinceMillis),
        s.size,
        ms,
        s.jobId,
        s.job == null ? null : s.job.state(),
        s.members.values().stream()
            .findFirst()
            .map(m -> PlaceholderJobs.qos(m.request, input.config()))
            .orElse(null),
        s.problem,
        List.copyOf(s.invalid),
        List.copyOf(s.timeline));
  }

  /** The readable summary the Temporal UI shows. */
  static String details(PodGroupInput input, PodGroupState s) {
    StringBuilder b = new StringBuilder("group ").append(input.ref()).append(": ");
    b.append(s.phase.label());
    long live = s.members.values().stream().filter(Member::live).count();
    b.append(", ").append(live).append(" live member(s)");
    if (s.size > 0) {
      b.append(" of ").append(s.size);
    }
    if (s.jobId != 0) {
      b.append(", Slurm job ").append(s.jobId);
      if (s.job != null) {
        b.append(" ").append(s.job.state());
      }
    }
    for (Member m : s.chosenMembers()) {
      if (m.k8sNode != null) {
        b.append(", ").append(m.request.name()).append(" on ").append(m.k8sNode);
      }
    }
    if (s.problem != null) {
      b.append("; problem: ").append(s.problem);
    }
    return b.toString();
  }
}
