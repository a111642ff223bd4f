package dev.tandem.workflows.schedule;

import static dev.tandem.workflows.schedule.GroupPhase.BINDING;
import static dev.tandem.workflows.schedule.GroupPhase.DONE;
import static dev.tandem.workflows.schedule.GroupPhase.ENDING;
import static dev.tandem.workflows.schedule.GroupPhase.INVALID;
import static dev.tandem.workflows.schedule.GroupPhase.PENDING;
import static dev.tandem.workflows.schedule.GroupPhase.RUNNING;
import static dev.tandem.workflows.schedule.ScheduleConditions.JOB_PENDING;
import static dev.tandem.workflows.schedule.ScheduleConditions.JOB_RUNNING;
import static dev.tandem.workflows.schedule.ScheduleConditions.SLURM_SCHEDULED;

import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmJobView;
import dev.tandem.workflows.model.Tuning;
import dev.tandem.workflows.schedule.GroupEffects.Kind;
import dev.tandem.workflows.schedule.PodGroupState.Member;
import dev.tandem.workflows.schedule.PodScheduleState.Ending;
import dev.tandem.workflows.support.Observations;
import dev.tandem.workflows.support.Step;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

/**
 * One handler per {@link GroupPhase} (steps 3 and 4 of {@link PodGroupWorkflowImpl}'s algorithm;
 * gathering is {@link GroupGathering}, ending {@link GroupEnding}).
 */
final class GroupPhases {
  private final PodGroupInput in;
  private final PodGroupState s;
  private final GroupEffects fx;
  private final GroupGathering gathering;
  private final GroupEnding ending;
  private final Tuning t;

  /** Re-read Kubernetes and Slurm before deciding (a timer fired: a signal may have been lost). */
  boolean refresh;

  GroupPhases(PodGroupInput in, PodGroupState s, GroupEffects fx) {
    this.in = in;
    this.s = s;
    this.fx = fx;
    this.gathering = new GroupGathering(in, s, fx);
    this.ending = new GroupEnding(in, s, fx);
    this.t = in.tuning();
  }

  Step<GroupPhase> handle() {
    return switch (s.phase) {
      case GATHERING, INVALID -> gathering.gather(refresh);
      case SUBMITTING -> submitting();
      case PENDING, BINDING, RUNNING -> scheduled();
      case ENDING -> ending.ending(refresh);
      case DONE -> Step.stay(s.phase, 0);
    };
  }

  private Step<GroupPhase> submitting() {
    Member gone = fx.endedMember(refresh);
    if (gone != null) {
      return ending.memberEnded(gone);
    }
    Member first = s.members.get(s.chosen.get(0));
    SlurmJobView job =
        fx.submit(PlaceholderJobs.forGroup(fx.tag(), first.request, in.config(), s.size));
    if (job == null) {
      if (fx.slurmRefused != null) {
        // No job exists: the group is invalid until its members change.
        s.refused = fx.slurmRefused;
        s.chosen = new ArrayList<>();
        return Step.to(INVALID, "refused", "Slurm refused the job: " + s.refused);
      }
      return Step.stay(s.phase, t.pollSeconds());
    }
    s.jobId = job.id();
    // The watcher may have seen the job (running, even) while the submit was answering.
    s.job = Observations.newerJob(s.job, job);
    String msg = queuedMessage();
    for (Member m : s.chosenMembers()) {
      fx.say(m, SLURM_SCHEDULED, Condition.FALSE, JOB_PENDING, msg, Kind.NONE);
    }
    return Step.to(PENDING, "submitted", msg);
  }

  /** PENDING, BINDING and RUNNING: a member's end or the job's state decides. */
  private Step<GroupPhase> scheduled() {
    Member gone = fx.endedMember(refresh);
    if (refresh) {
      fx.refreshJob();
    }
    gathering.flagExtras();
    JobOutlook o = JobOutlook.of(s.job, s.phase != PENDING);
    boolean jobEnded = o == JobOutlook.PREEMPTED || o == JobOutlook.ENDED;
    if (gone != null && !jobEnded) {
      return ending.memberEnded(gone);
    }
    switch (o) {
      case PREEMPTED, ENDED -> {
        // With a member gone too, Slurm's ending is still the group's: the member may be gone
        // because this workflow evicted it for that ending.
        boolean preempted = o == JobOutlook.PREEMPTED;
        s.ending = Ending.of(s.job, preempted, s.jobNodes());
        String also = gone == null ? "" : "; member " + gone.ref() + " is gone already";
        return Step.to(ENDING, preempted ? "preempted" : "job-ended", s.ending.message() + also);
      }
      case UNKNOWN -> {
        if (s.job != null) {
          s.problem =
              "Slurm job " + s.jobId + " is in state " + s.job.state() + ", unknown to Tandem";
        }
        return Step.stay(s.phase, t.pollSeconds());
      }
      case WAITING -> {
        tellWhyQueued();
        return Step.stay(s.phase, t.resyncSeconds());
      }
      case RUNNING -> {
        // handled below
      }
    }
    if (s.phase == PENDING) {
      return Step.to(BINDING, "job-started", "Slurm job " + s.jobId + " on " + s.job.nodes());
    }
    return s.phase == BINDING ? bind() : Step.stay(s.phase, t.resyncSeconds());
  }

  /**
   * The job still waits, and Slurm says why (the watcher signals a placeholder still waiting 6 s
   * after it first listed it; a resync re-reads it): tell every member once, so that a gang Slurm
   * cannot place yet (more members than the partition has nodes up, higher tiers holding them)
   * shows why on its pods. The members were told "queued" at the submit, without a reason: Slurm
   * gives none that early.
   */
  private void tellWhyQueued() {
    String why = ScheduleConditions.queuedReason(s.job);
    if (s.phase != PENDING || s.queuedWhyTold || why == null) {
      return;
    }
    String msg = queuedMessage() + ": " + why;
    boolean all = true;
    for (Member m : s.chosenMembers()) {
      all &= fx.say(m, SLURM_SCHEDULED, Condition.FALSE, JOB_PENDING, msg, Kind.NONE);
    }
    // A write that failed is tried again on the next pass (a resync at the latest).
    s.queuedWhyTold = all;
  }

  private String queuedMessage() {
    return "Slurm job " + s.jobId + " queued for group " + in.group() + " (" + s.size + " nodes)";
  }

  /**
   * Maps every node of the job before binding any member, so that a member is never bound while
   * another has nowhere to go; then binds member i (name order) to node i (sorted).
   */
  private Step<GroupPhase> bind() {
    List<String> nodes = s.job.nodes().stream().sorted().toList();
    List<Member> members = s.chosenMembers();
    if (nodes.size() != members.size()) {
      s.problem =
          "Slurm job "
              + s.jobId
              + " runs on "
              + nodes
              + ", but the group has "
              + members.size()
              + " members";
      return Step.stay(s.phase, t.pollSeconds());
    }
    List<String> k8s = new ArrayList<>();
    for (String node : nodes) {
      String k = fx.k8sNodeOf(node);
      if (k == null) {
        if (s.problem == null || !s.problem.startsWith("cannot ")) {
          s.problem =
              "Slurm node "
                  + node
                  + " has no running slurmd pod on a Kubernetes node;"
                  + " no member is bound until every node of the job has one";
        }
        return Step.stay(s.phase, t.pollSeconds());
      }
      k8s.add(k);
    }
    if (new HashSet<>(k8s).size() != k8s.size()) {
      s.problem = "Slurm nodes " + nodes + " map to Kubernetes nodes " + k8s + " (not distinct)";
      return Step.stay(s.phase, t.pollSeconds());
    }
    List<String> placed = new ArrayList<>();
    for (int i = 0; i < members.size(); i++) {
      Member m = members.get(i);
      placed.add(m.request.name() + "->" + k8s.get(i));
      if (k8s.get(i).equals(m.k8sNode)) {
        continue; // bound by an earlier try
      }
      PodView p = fx.bind(m, k8s.get(i), nodes.get(i));
      if (p == null) {
        return Step.stay(s.phase, t.pollSeconds());
      }
      if (ScheduleEffects.podDone(p)) {
        return ending.memberEnded(m);
      }
      if (!k8s.get(i).equals(p.k8sNode())) {
        s.problem = m.ref() + " is on " + p.k8sNode() + ", not on " + k8s.get(i);
        return Step.stay(s.phase, t.pollSeconds());
      }
      m.k8sNode = k8s.get(i);
      m.slurmNode = nodes.get(i);
    }
    for (Member m : members) {
      String what =
          "Slurm job " + s.jobId + " of group " + in.group() + " on Slurm node " + m.slurmNode;
      String msg = what + " (Kubernetes node " + m.k8sNode + ")";
      boolean news = !("SlurmScheduled|True|" + JOB_RUNNING + "|" + msg).equals(m.said);
      if (!fx.say(m, SLURM_SCHEDULED, Condition.TRUE, JOB_RUNNING, msg, Kind.NONE)) {
        return Step.stay(s.phase, t.pollSeconds());
      }
      if (news) {
        fx.event(m, false, "Scheduled", "Bound to " + m.k8sNode + ": " + what);
      }
    }
    return Step.to(RUNNING, "bound", String.join(", ", placed));
  }
}
