package dev.tandem.workflows.schedule;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmJobView;
import dev.tandem.workflows.schedule.PodGroupState.Member;
import dev.tandem.workflows.support.Observations;
import dev.tandem.workflows.support.Scoped;
import dev.tandem.workflows.support.SearchAttributes;
import dev.tandem.workflows.support.SignalInbox;
import dev.tandem.workflows.support.Step;
import io.temporal.common.VersioningBehavior;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInit;
import io.temporal.workflow.WorkflowVersioningBehavior;
import java.time.Duration;

/**
 * Schedules a gang of N pods through Slurm as ONE placeholder job with N nodes, one member per
 * node, all or none (docs/architecture.md, "Pods through Slurm").
 *
 * <ol>
 *   <li>Members arrive by signal ({@code memberObserved}; an absent view = the member is gone). A
 *       pod of a known name with another uid replaces the old one before the job exists; after, it
 *       means the old member is gone.
 *   <li>Gathering ({@link GroupGathering}): the live members are checked ({@link GroupValidator}):
 *       each on its own, the same {@code group-size}, the same job shape, no more pods than the
 *       size. A member with problems gets {@code SlurmScheduled=False} reason {@code InvalidPod}
 *       and a Warning event; the others get reason {@code GroupInvalid} naming it: INVALID. With
 *       fewer valid members than the size each gets reason {@code WaitingForGroup} ("2 of 3 members
 *       of group g are here"): GATHERING. Neither has a timeout, and INVALID is not final: both are
 *       checked again whenever a member changes, since the group's id outlives its pods. No live
 *       member left: DONE.
 *   <li>Submitting: with N valid members, they are fixed (sorted by name) and ONE job is submitted,
 *       {@code nodes = N}, sized like any member, tagged {@code <ns>.<group>} ({@link
 *       PlaceholderJobs#forGroup}), never requeued. Slurm refusing it makes the group INVALID until
 *       its members change.
 *   <li>Pending, then binding once the job runs: all N Slurm nodes are mapped to Kubernetes nodes
 *       first; unless every one maps (to distinct nodes), no member is bound and the mapping is
 *       retried on the timer. Then member i (by name) is bound to node i (sorted), with annotations
 *       {@code job-id}/{@code slurm-node}, and every member gets {@code SlurmScheduled=True}:
 *       RUNNING. A failed bind is retried; binds already done are kept.
 *   <li>Ending: the job preempted, requeued or suspended ({@code SlurmPreempted}) or ended or gone
 *       ({@code SlurmJobEnded}), or a member deleted, being deleted, Succeeded or Failed ({@code
 *       SlurmJobEnded}, reason {@code GroupMemberEnded}, naming the member): every other member
 *       gets the condition and a Warning event and is evicted; then every job with the group tag
 *       that Slurm still holds is cancelled: DONE.
 *   <li>Signals only update {@link PodGroupState}; the loop acts. They may be lost or duplicated,
 *       so each phase re-reads the members (getPod) and the job (findJobs by tag) on a timer.
 *       Signals after DONE change nothing. Pods beyond the fixed members get {@code InvalidPod}
 *       ("one too many"). The workflow continues as new before its history grows large.
 * </ol>
 */
public class PodGroupWorkflowImpl implements PodGroupRun {

  private final PodGroupInput input;
  private final PodGroupState s;
  private final GroupEffects fx;
  private final boolean fresh;
  private boolean dirty;

  @WorkflowInit
  public PodGroupWorkflowImpl(PodGroupInput in) {
    this.input = in;
    this.fresh = in.state() == null;
    this.s = fresh ? new PodGroupState() : in.state();
    if (fresh) {
      s.phaseSinceMillis = Workflow.currentTimeMillis();
    }
    this.fx = new GroupEffects(in, s);
    if (fresh) {
      // Here, not in run: the member signal that started the group is handled before run's body,
      // and the timeline should begin with the start.
      fx.timeline("started", "group " + in.ref());
    }
    SignalInbox.open(PodGroupWorkflow.class, this, r -> fx.timeline("signal-rejected", r));
  }

  @Override
  // Pinned: an execution finishes on the build that started it (docs/upgrading.md).
  @WorkflowVersioningBehavior(VersioningBehavior.PINNED)
  public GroupPhase run(PodGroupInput in) {
    GroupPhases phases = new GroupPhases(in, s, fx);
    SearchAttributes sa = new SearchAttributes(in.tuning().searchAttributes());
    sa.set(SearchAttributes.POD, searchKey(in));
    phases.refresh = !fresh;
    while (true) {
      sa.set(SearchAttributes.PHASE, s.phase.label());
      if (s.jobId != 0) {
        sa.set(SearchAttributes.JOB_ID, Long.toString(s.jobId));
      }
      dirty = false;
      Step<GroupPhase> step = phases.handle();
      phases.refresh = false;
      if (step.next() != s.phase) {
        s.phase = step.next();
        s.phaseSinceMillis = Workflow.currentTimeMillis();
        s.problem = null; // a problem belongs to the phase that had it
        fx.timeline(step.event(), step.detail());
        if (s.phase.terminal()) {
          sa.set(SearchAttributes.PHASE, s.phase.label());
          Workflow.setCurrentDetails(details());
          return s.phase;
        }
        continue;
      }
      Workflow.setCurrentDetails(details());
      // A signal's news counts even when the timer fired too: a task that started late must not
      // take the watcher's news for a silent timeout and re-read every member and the job.
      boolean woken = Scoped.await(Duration.ofSeconds(step.waitSeconds()), () -> dirty);
      phases.refresh = !woken;
      maybeContinueAsNew();
    }
  }

  public void memberObserved(GroupMember m) {
    if (s.phase.terminal()) {
      return;
    }
    PodRequest r = m.request();
    PodView v = m.view() == null ? PodView.absent(r.name()) : m.view();
    if (v.exists() && v.uid() != null && !v.uid().equals(r.uid())) {
      v = PodView.absent(r.name()); // the view is of another pod: this one is gone
    }
    Member cur = s.members.get(r.name());
    boolean other = cur != null && !cur.request.uid().equals(r.uid());
    if (other && !v.exists()) {
      return; // news of a pod that is not (or no longer) the member
    }
    if (other && s.phase.committed()) {
      // The member was replaced by a new pod of the same name: the member is gone. The new pod
      // is not scheduled by this run (the watcher sends it again to the next one).
      if (cur.live()) {
        cur.view = PodView.absent(r.name());
        fx.timeline("member-replaced", r.ref() + " has a new uid " + r.uid());
        dirty = true;
      }
      return;
    }
    if (cur == null || other) {
      s.members.put(r.name(), new Member(r, v));
      s.refused = null; // new members: Slurm may accept the job now
      fx.timeline("member", r.ref() + " uid " + r.uid() + (v.exists() ? "" : " (gone)"));
    } else {
      if (cur.live() && !new Member(r, v).live()) {
        s.refused = null;
        fx.timeline("member-gone", r.ref());
        s.gone(r.name());
      }
      if (!s.phase.committed()) {
        cur.request = r; // annotations may change before the job exists
      }
      cur.view = Observations.newerPod(cur.view, v);
    }
    dirty = true;
  }

  public void jobObserved(SlurmJobView job) {
    if (s.phase.terminal()) {
      return;
    }
    if (s.jobId == 0) {
      // Submitted but not answered yet: a job with our tag is ours, held until the answer.
      if (!s.chosen.isEmpty() && PlaceholderJob.nameFor(fx.tag()).equals(job.name())) {
        s.job = job;
        dirty = true;
      }
      return;
    }
    if (job.id() != s.jobId) {
      return;
    }
    // By progress, not by clocks (see Observations.newerJob).
    s.job = Observations.signalledJob(s.job, job);
    dirty = true;
  }

  @Override
  public PodGroupStatus status() {
    return GroupSummary.status(input, s);
  }

  private String details() {
    return GroupSummary.details(input, s);
  }

  private void maybeContinueAsNew() {
    long events = Workflow.getInfo().getHistoryLength();
    if (events < input.tuning().maxHistoryEvents()
        && !Workflow.getInfo().isContinueAsNewSuggested()) {
      return;
    }
    fx.timeline("continued-as-new", "after " + events + " history events");
    PodGroupWorkflow next = Workflow.newContinueAsNewStub(PodGroupWorkflow.class);
    next.run(
        new PodGroupInput(input.namespace(), input.group(), input.config(), input.tuning(), s));
  }

  /**
   * The {@code TandemPod} search attribute of a gang: {@code <ns>/group/<group>}. One value (the
   * attribute is a Keyword, not a list) that cannot be a pod's {@code <ns>/<pod>}, since a pod name
   * has no '/'.
   */
  static String searchKey(PodGroupInput in) {
    return in.namespace() + "/group/" + in.group();
  }

  /** {@code schedule-group/<ns>/<group>}. */
  public static String workflowId(String namespace, String group) {
    return Names.podGroupWorkflowId(namespace, group);
  }
}
