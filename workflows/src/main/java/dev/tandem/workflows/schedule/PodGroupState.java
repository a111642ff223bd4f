package dev.tandem.workflows.schedule;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmJobView;
import dev.tandem.workflows.schedule.PodScheduleState.Ending;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * Everything a {@link PodGroupWorkflow} knows, in one serializable object: the whole memory carried
 * across continue-as-new. Mutated only by the workflow thread.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public final class PodGroupState {

  /** One pod of the group, by name. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public static final class Member {
    /** The pod as the watcher sent it (its uid identifies the member). */
    PodRequest request;

    /** Last view of the pod; absent once it is gone. */
    PodView view;

    String slurmNode;
    String k8sNode;

    /** {@code <type>|<reason>|<message>} of the last condition written, so it is written once. */
    String said;

    /** The ending's condition and event were written on this member. */
    boolean announced;

    Member() {}

    Member(PodRequest request, PodView view) {
      this.request = request;
      this.view = view;
    }

    /** Here and not ending: exists, not terminating, not Succeeded/Failed. */
    boolean live() {
      return view != null && !ScheduleEffects.podDone(view) && view.exists();
    }

    String ref() {
      return request.ref();
    }
  }

  GroupPhase phase = GroupPhase.GATHERING;
  long phaseSinceMillis;

  /** The group size once the members agree on it, else 0. */
  int size;

  /** Every pod seen, by name (sorted: the order decides which member goes to which node). */
  TreeMap<String, Member> members = new TreeMap<>();

  /** The members the job was submitted for, sorted by name; fixed from SUBMITTING on. */
  List<String> chosen = new ArrayList<>();

  /** The placeholder job id, 0 before it is submitted. */
  long jobId;

  /** Last view of the job, or null. */
  SlurmJobView job;

  /** The members were told why Slurm keeps the job waiting. */
  boolean queuedWhyTold;

  /** Slurm's message when it refused the group's job; cleared when the members change. */
  String refused;

  /** Why the group ends (phase ENDING), or null. */
  Ending ending;

  /**
   * The member seen going first (by signal, in arrival order, or by a re-read), or null: the one
   * the group's ending names when several are gone by the time a pass runs.
   */
  String firstGone;

  /** The wait, in phase ENDING, for members being deleted before the job is released. */
  StopWait stopWait = new StopWait();

  /** After a preemption: the search for the job that preempted the group. */
  PreemptorSearch preemptor = new PreemptorSearch();

  /** The Slurm nodes the job held: Slurm's last view, else those its members were bound to. */
  List<String> jobNodes() {
    if (job != null && !job.nodes().isEmpty()) {
      return job.nodes();
    }
    return members.values().stream()
        .map(m -> m.slurmNode)
        .filter(java.util.Objects::nonNull)
        .sorted()
        .toList();
  }

  /** Notes a chosen member seen going, if none went before it. */
  void gone(String member) {
    if (firstGone == null && chosen.contains(member)) {
      firstGone = member;
    }
  }

  /** Why the group cannot run (phase INVALID), one message per problem. */
  List<String> invalid = new ArrayList<>();

  /** What keeps the current phase from progressing, or null. */
  String problem;

  List<GroupTimelineEntry> timeline = new ArrayList<>();

  public GroupPhase phase() {
    return phase;
  }

  /** The chosen members, in name order. */
  List<Member> chosenMembers() {
    List<Member> out = new ArrayList<>();
    for (String n : chosen) {
      out.add(members.get(n));
    }
    return out;
  }

  List<Member> liveMembers() {
    return members.values().stream().filter(Member::live).toList();
  }
}
