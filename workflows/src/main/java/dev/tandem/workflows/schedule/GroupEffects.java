package dev.tandem.workflows.schedule;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.EventRequest;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmJobView;
import dev.tandem.workflows.schedule.PodGroupState.Member;
import dev.tandem.workflows.support.Observations;
import java.util.List;

/**
 * The gang workflow's hands, like {@link ScheduleEffects} for one pod: activity calls that keep
 * {@link PodGroupState} up to date. An activity that fails after its retries becomes the state's
 * problem and the caller gets null (or false): unknown, so the handler waits for the next poll.
 */
final class GroupEffects extends ActivityCalls {

  private final PodGroupInput in;
  private final PodGroupState s;

  GroupEffects(PodGroupInput in, PodGroupState s) {
    super(in.ref(), () -> s.problem, p -> s.problem = p);
    this.in = in;
    this.s = s;
  }

  /**
   * The job tag {@code <ns>.<group>.<incarnation>}: the incarnation is the first 8 characters of
   * the smallest uid of the members the job is for (fixed from SUBMITTING on), so a re-created gang
   * of the same name never finds the ended job of the one before (see {@link
   * Names#podGroupJobTag}).
   */
  String tag() {
    String min = null;
    for (String name : s.chosen) {
      String uid = s.members.get(name).request.uid();
      if (uid != null && (min == null || uid.compareTo(min) < 0)) {
        min = uid;
      }
    }
    String key = min == null ? "none" : min.replaceAll("[^A-Za-z0-9]", "");
    return Names.podGroupJobTag(
        in.namespace(), in.group(), key.substring(0, Math.min(8, key.length())));
  }

  /** Re-reads a member; a pod of the same name with another uid means the member is gone. */
  void refresh(Member m) {
    PodView p = call("read pod", () -> api("read pod").getPod(in.namespace(), m.request.name()));
    if (p != null) {
      m.view = Observations.newerPod(m.view, own(m, p));
    }
  }

  /** Re-reads the job by the group tag; GONE if Slurm no longer lists it. */
  void refreshJob() {
    if (s.jobId == 0) {
      return;
    }
    List<SlurmJobView> jobs = tagged();
    if (jobs != null) {
      s.job =
          Observations.newerJob(
              s.job,
              jobs.stream()
                  .filter(x -> x.id() == s.jobId)
                  .findFirst()
                  .orElse(ScheduleEffects.gone(s.jobId)));
    }
  }

  SlurmJobView submit(PlaceholderJob job) {
    return call("submit job", () -> api("submit group job").submitPlaceholder(job));
  }

  /** Every job Slurm lists with the group tag; null if Slurm could not be read. */
  List<SlurmJobView> tagged() {
    return call("list jobs", () -> api("find jobs").findJobs(tag()));
  }

  @Override
  void jobAnswered(long id, SlurmJobView j) {
    if (id == s.jobId) {
      s.job = j;
    }
  }

  /** The Kubernetes node that hosts Slurm node {@code slurmNode}; null: unknown. */
  String k8sNodeOf(String slurmNode) {
    return call("map node", () -> api("find node of " + slurmNode).slurmNodeToK8sNode(slurmNode));
  }

  /** Binds member {@code m} to its node; the pod afterwards, or null if unknown. */
  PodView bind(Member m, String k8sNode, String slurmNode) {
    PodRequest r = m.request;
    BindRequest b = new BindRequest(r.namespace(), r.name(), r.uid(), k8sNode, s.jobId, slurmNode);
    PodView p = call("bind pod", () -> api("bind " + r.name()).bindPod(b));
    if (p != null) {
      m.view = Observations.newerPod(m.view, own(m, p));
    }
    return p == null ? null : m.view;
  }

  PodView evict(Member m, String reason) {
    PodRequest r = m.request;
    PodView p =
        call(
            "evict pod",
            () -> api("evict " + r.name()).evictPod(r.namespace(), r.name(), r.uid(), reason));
    if (p != null) {
      m.view = Observations.newerPod(m.view, own(m, p));
    }
    return p == null ? null : m.view;
  }

  /**
   * Sets a condition on member {@code m} unless it is what was last written there, with an event
   * when it is new; false if Kubernetes could not be written (retry later).
   */
  boolean say(Member m, String type, String status, String reason, String message, Kind kind) {
    String key = type + "|" + status + "|" + reason + "|" + message;
    if (key.equals(m.said)) {
      return true;
    }
    PodRequest r = m.request;
    Condition c = new Condition(type, status, reason, message, now());
    Boolean ok =
        call(
            "set condition",
            () -> {
              api(r.name() + " " + type + "=" + status)
                  .setPodCondition(r.namespace(), r.name(), r.uid(), c);
              return Boolean.TRUE;
            });
    if (ok == null) {
      return false;
    }
    m.said = key;
    if (kind != Kind.NONE) {
      event(m, kind == Kind.WARNING, reason, message);
    }
    return true;
  }

  /** Records an event on member {@code m} (best effort). */
  void event(Member m, boolean warning, String reason, String message) {
    PodRequest r = m.request;
    EventRequest e =
        EventRequest.pod(r.namespace(), r.name(), r.uid(), warning, reason, message)
            .inGroup(in.group());
    call(
        "record event",
        () -> {
          api("event " + reason).recordEvent(e);
          return Boolean.TRUE;
        });
  }

  /** Which event goes with a condition. */
  enum Kind {
    NONE,
    NORMAL,
    WARNING
  }

  void timeline(String event, String detail) {
    s.timeline.add(new GroupTimelineEntry(now(), s.phase, event, detail));
    while (s.timeline.size() > in.tuning().timelineLimit()) {
      s.timeline.remove(0);
    }
  }

  /** Re-reads the chosen members on a timer; the first of them that ended, or null. */
  Member endedMember(boolean refresh) {
    Member ended = null;
    for (Member m : s.chosenMembers()) {
      if (refresh && m.live()) {
        refresh(m);
        if (!m.live()) {
          s.gone(m.request.name());
        }
      }
      if (ended == null && !m.live()) {
        ended = m;
      }
    }
    if (ended != null && s.firstGone != null) {
      // Several gone by now (a retried task sees every deletion that came meanwhile): the one
      // that went first ended the group; the others went because of it.
      Member first = s.members.get(s.firstGone);
      if (first != null && s.chosen.contains(s.firstGone) && !first.live()) {
        return first;
      }
    }
    return ended;
  }

  private static PodView own(Member m, PodView p) {
    boolean same = !p.exists() || p.uid() == null || p.uid().equals(m.request.uid());
    return same ? p : PodView.absent(m.request.name());
  }
}
