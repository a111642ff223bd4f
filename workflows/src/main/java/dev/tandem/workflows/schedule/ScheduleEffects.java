package dev.tandem.workflows.schedule;

import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.EventRequest;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmJobView;
import dev.tandem.workflows.support.Observations;
import java.util.List;

/**
 * The scheduling workflow's hands: activity calls that keep {@link PodScheduleState} up to date,
 * and its timeline. An activity that fails after its retries does not fail the workflow: it becomes
 * the state's problem and the caller gets null, which every handler treats as unknown (fail closed)
 * and answers by waiting for the next poll. Only Slurm refusing the submit is final ({@link
 * #slurmRefused}).
 */
final class ScheduleEffects extends ActivityCalls {

  private final PodRequest pod;
  private final PodScheduleState s;
  private final int timelineLimit;

  /**
   * A call's answer (an eviction, a bind, a read), not the watcher, showed first that the pod is
   * gone or going: the watcher's signal of the same change is still to come. Not state: a continued
   * run starts without it.
   */
  boolean podEndUnheard;

  ScheduleEffects(PodRequest pod, PodScheduleState s, int timelineLimit) {
    super(pod.ref(), () -> s.problem, p -> s.problem = p);
    this.pod = pod;
    this.s = s;
    this.timelineLimit = timelineLimit;
  }

  /** Re-reads the pod; a pod of the same name with another uid counts as absent. Null: unknown. */
  PodView refreshPod() {
    PodView p = call("read pod", () -> api("read pod").getPod(pod.namespace(), pod.name()));
    return merged(p);
  }

  /** Re-reads the placeholder job by the uid tag; GONE if Slurm no longer lists it. */
  SlurmJobView refreshJob() {
    if (s.jobId == 0) {
      return null;
    }
    List<SlurmJobView> jobs = tagged();
    if (jobs == null) {
      return null;
    }
    SlurmJobView j = jobs.stream().filter(x -> x.id() == s.jobId).findFirst().orElse(gone(s.jobId));
    s.job = Observations.newerJob(s.job, j);
    return s.job;
  }

  SlurmJobView submit(PlaceholderJob job) {
    return call("submit job", () -> api("submit placeholder job").submitPlaceholder(job));
  }

  /** The workflow's first submit: no listing for the tag first (see {@link PlaceholderCare}). */
  SlurmJobView submitFirst(PlaceholderJob job) {
    return call("submit job", () -> api("submit placeholder job").submitFirstPlaceholder(job));
  }

  /** Every job Slurm lists with the pod's uid tag; null if Slurm could not be read. */
  List<SlurmJobView> tagged() {
    return call("list jobs", () -> api("find jobs").findJobs(pod.uid()));
  }

  @Override
  void jobAnswered(long id, SlurmJobView j) {
    if (id == s.jobId) {
      s.job = j;
    }
  }

  /**
   * Binds the pod where Slurm node {@link PodScheduleState#slurmNode} is hosted, and marks it bound
   * (condition and event), in one call. Null: unknown (the call failed). The pod view merges into
   * the state as a bind's does.
   */
  Placement place() {
    PlacementRequest r =
        new PlacementRequest(pod.namespace(), pod.name(), pod.uid(), s.jobId, s.slurmNode, now());
    Placement pl = call("bind pod", () -> api("bind to the node of " + s.slurmNode).placePod(r));
    if (pl == null || pl.pod() == null) {
      return pl;
    }
    return new Placement(pl.k8sNode(), merged(pl.pod()));
  }

  PodView evict(String reason) {
    PodView p =
        call(
            "evict pod",
            () -> api("evict pod").evictPod(pod.namespace(), pod.name(), pod.uid(), reason));
    return merged(p);
  }

  /**
   * Announces the ending (condition and Warning event) and evicts, in one call. Null: the call
   * failed, nothing is known to be written. Else the condition and the event are written, and the
   * eviction's answer (null: none) merges into the state as {@link #evict}'s does.
   */
  Announced announceAndEvict(String type, String reason, String message) {
    AnnounceRequest r =
        new AnnounceRequest(
            pod.namespace(),
            pod.name(),
            pod.uid(),
            new Condition(type, Condition.TRUE, reason, message, now()),
            EventRequest.pod(pod.namespace(), pod.name(), pod.uid(), true, type, message));
    Announced a = call("evict pod", () -> api("announce and evict pod").announceAndEvict(r));
    if (a == null || a.pod() == null) {
      return a;
    }
    return new Announced(merged(a.pod()));
  }

  /** Sets a pod condition; false if Kubernetes could not be written (retry later). */
  boolean condition(String type, String status, String reason, String message) {
    Condition c = new Condition(type, status, reason, message, now());
    return call(
            "set condition",
            () -> {
              api("condition " + type + "=" + status)
                  .setPodCondition(pod.namespace(), pod.name(), pod.uid(), c);
              return Boolean.TRUE;
            })
        != null;
  }

  void event(boolean warning, String reason, String message) {
    EventRequest e =
        EventRequest.pod(pod.namespace(), pod.name(), pod.uid(), warning, reason, message);
    call(
        "record event",
        () -> {
          api("event " + reason).recordEvent(e);
          return Boolean.TRUE;
        });
  }

  void timeline(String event, String detail) {
    s.timeline.add(new ScheduleTimelineEntry(now(), s.phase, event, detail));
    while (s.timeline.size() > timelineLimit) {
      s.timeline.remove(0);
    }
  }

  /** The pod is gone, going or finished: its job must not hold anything any more. */
  static boolean podDone(PodView p) {
    return p != null && (!p.exists() || p.terminating() || p.failed());
  }

  /**
   * The pod's containers have stopped: it is gone, succeeded or failed. Not one that is only being
   * deleted: that pod may run until its grace period ends.
   */
  static boolean podStopped(PodView p) {
    return p != null && (!p.exists() || p.failed());
  }

  static SlurmJobView gone(long id) {
    return new SlurmJobView(id, null, null, SlurmJobView.GONE, null, List.of(), 0, null);
  }

  /**
   * Merges a call's answer about the pod into the state (a pod of the same name with another uid
   * counts as absent; views only move forward) and returns the state's view. Null: unknown, and the
   * state is left as it was.
   */
  private PodView merged(PodView p) {
    if (p == null) {
      return null;
    }
    boolean before = podDone(s.pod);
    s.pod = Observations.newerPod(s.pod, sameUid(p) ? p : PodView.absent(pod.name()));
    podEndUnheard |= !before && podDone(s.pod);
    return s.pod;
  }

  private boolean sameUid(PodView p) {
    return !p.exists() || p.uid() == null || p.uid().equals(pod.uid());
  }
}
