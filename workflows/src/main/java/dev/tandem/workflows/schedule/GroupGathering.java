package dev.tandem.workflows.schedule;

import static dev.tandem.workflows.schedule.GroupPhase.DONE;
import static dev.tandem.workflows.schedule.GroupPhase.GATHERING;
import static dev.tandem.workflows.schedule.GroupPhase.INVALID;
import static dev.tandem.workflows.schedule.GroupPhase.SUBMITTING;
import static dev.tandem.workflows.schedule.ScheduleConditions.GROUP_INVALID;
import static dev.tandem.workflows.schedule.ScheduleConditions.INVALID_POD;
import static dev.tandem.workflows.schedule.ScheduleConditions.SLURM_SCHEDULED;
import static dev.tandem.workflows.schedule.ScheduleConditions.WAITING_FOR_GROUP;

import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.schedule.GroupEffects.Kind;
import dev.tandem.workflows.schedule.PodGroupState.Member;
import dev.tandem.workflows.support.Step;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The GATHERING and INVALID phases of {@link PodGroupWorkflowImpl} (steps 1 and 2 of its
 * algorithm), and the marking of extra pods once the members are fixed.
 */
final class GroupGathering {
  private final PodGroupInput in;
  private final PodGroupState s;
  private final GroupEffects fx;

  GroupGathering(PodGroupInput in, PodGroupState s, GroupEffects fx) {
    this.in = in;
    this.s = s;
    this.fx = fx;
  }

  /** Checks the live members again and says on each where the group stands. */
  Step<GroupPhase> gather(boolean refresh) {
    if (refresh) {
      for (Member m : s.liveMembers()) {
        fx.refresh(m);
      }
    }
    List<Member> live = s.liveMembers();
    if (live.isEmpty()) {
      // No pod left to schedule: a pod that comes later starts a new run under the same id.
      return Step.to(DONE, "no-members", "no member of the group is left; no job");
    }
    GroupValidator.Verdict v =
        GroupValidator.check(
            in.namespace(),
            in.group(),
            live.stream().map(m -> m.request).toList(),
            in.config(),
            s.refused);
    s.size = v.size();
    if (!v.ok()) {
      return invalid(live, v);
    }
    s.invalid = new ArrayList<>();
    List<String> names = live.stream().map(m -> m.request.name()).toList();
    if (live.size() < v.size()) {
      String msg =
          live.size()
              + " of "
              + v.size()
              + " members of group "
              + in.group()
              + " are here ("
              + String.join(", ", names)
              + "); the group's Slurm job is submitted once all are (no timeout)";
      for (Member m : live) {
        if (!fx.say(m, SLURM_SCHEDULED, Condition.FALSE, WAITING_FOR_GROUP, msg, Kind.NORMAL)) {
          return Step.stay(s.phase, in.tuning().pollSeconds());
        }
      }
      return s.phase == GATHERING
          ? Step.stay(GATHERING, in.tuning().resyncSeconds())
          : Step.to(GATHERING, "waiting", msg);
    }
    s.chosen = new ArrayList<>(names);
    return Step.to(
        SUBMITTING,
        "complete",
        "all " + v.size() + " members are here: " + String.join(", ", names));
  }

  /**
   * A member with problems of its own gets {@code InvalidPod} with them; every other member gets
   * {@code GroupInvalid} naming the members (or the group problem) that keep the group from
   * running.
   */
  private Step<GroupPhase> invalid(List<Member> live, GroupValidator.Verdict v) {
    List<String> all = new ArrayList<>(v.group());
    for (Map.Entry<String, List<String>> e : v.members().entrySet()) {
      all.add(in.namespace() + "/" + e.getKey() + ": " + String.join("; ", e.getValue()));
    }
    String groupMsg = "group " + in.group() + " cannot run: " + String.join("; ", all);
    for (Member m : live) {
      List<String> own = v.members().get(m.request.name());
      boolean ok =
          own != null
              ? fx.say(
                  m,
                  SLURM_SCHEDULED,
                  Condition.FALSE,
                  INVALID_POD,
                  String.join("; ", own),
                  Kind.WARNING)
              : fx.say(m, SLURM_SCHEDULED, Condition.FALSE, GROUP_INVALID, groupMsg, Kind.WARNING);
      if (!ok) {
        return Step.stay(s.phase, in.tuning().pollSeconds());
      }
    }
    s.invalid = all;
    return s.phase == INVALID
        ? Step.stay(INVALID, in.tuning().resyncSeconds())
        : Step.to(INVALID, "invalid", groupMsg);
  }

  /**
   * Once the job is submitted the members are fixed: a live pod that is not one of them is one too
   * many and is told so (it is not scheduled by this run; see the progress doc for the watcher).
   */
  void flagExtras() {
    for (Member m : s.liveMembers()) {
      if (!s.chosen.contains(m.request.name())) {
        fx.say(
            m,
            SLURM_SCHEDULED,
            Condition.FALSE,
            INVALID_POD,
            "group "
                + in.group()
                + " already has its "
                + s.chosen.size()
                + " members ("
                + String.join(", ", s.chosen)
                + "): this pod is one too many; delete it",
            Kind.WARNING);
      }
    }
  }
}
