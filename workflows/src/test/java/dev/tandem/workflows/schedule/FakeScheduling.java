package dev.tandem.workflows.schedule;

import dev.tandem.workflows.activities.KubeActivities;
import dev.tandem.workflows.activities.SchedulingActivities;
import dev.tandem.workflows.activities.SlurmActivities;
import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.EventRequest;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmJobView;
import io.temporal.failure.ApplicationFailure;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Slurm jobs and Kubernetes pods in memory, behind {@link SchedulingActivities}, with the contract
 * the real activities keep (submit finds the uid-tagged job first, cancel is idempotent, bind and
 * evict only touch the pod with the given uid). Tests change the world directly and may or may not
 * signal the workflow, to check that lost signals only delay.
 */
public class FakeScheduling implements SchedulingActivities {
  public final Map<Long, SlurmJobView> jobs = new LinkedHashMap<>();
  public final Map<String, PodView> pods = new HashMap<>();
  public final Map<String, String> slurmToK8s = new HashMap<>();
  public final List<PlaceholderJob> submitted = new ArrayList<>();

  /** Calls of {@link #submitFirstPlaceholder}. */
  public int firstSubmits;

  /** Every submit asked for, first or not, refused or not. */
  public int submitAttempts;

  public final List<Long> cancelled = new ArrayList<>();

  /** Jobs released ({@link #releaseJob}), also in {@link #cancelled}. */
  public final List<Long> released = new ArrayList<>();

  public final List<BindRequest> binds = new ArrayList<>();
  public final List<String> evictions = new ArrayList<>();

  /**
   * Evictions ({@code evict <pod>}) and cancels ({@code cancel <id>}) in the order they happened.
   */
  public final List<String> actions = new ArrayList<>();

  public final List<Condition> conditions = new ArrayList<>();

  /** The conditions set on each pod, by pod name, oldest first. */
  public final Map<String, List<Condition>> podConditions = new HashMap<>();

  public final List<EventRequest> events = new ArrayList<>();

  /** Non-null: submit refuses for good with this message. */
  public String refuseSubmit;

  /** Submit creates the job (once), then fails as if its answer were lost, every time. */
  public boolean loseSubmitAnswer;

  /** How many submits create the job and then fail as if the answer were lost (then succeed). */
  public int loseSubmitAnswers;

  /** How many evictions are refused (429, a PodDisruptionBudget) before one is accepted. */
  public int refuseEvictions;

  /**
   * Runs inside the next submit (once), after the job is made and before the answer is returned: a
   * test sends a signal here to make it arrive while the activity runs.
   */
  public Runnable duringSubmit;

  /** As {@link #duringSubmit}, inside the next bind (once), after the pod is bound. */
  public Runnable duringBind;

  /** As {@link #duringSubmit}, inside the next eviction (once), after the pod is evicted. */
  public Runnable duringEvict;

  /** Every getPod and findJobs call, in order ({@code read <pod>}, {@code find <tag>}). */
  public final List<String> reads = new ArrayList<>();

  private long nextId = 100;

  public synchronized void addPod(String name, String uid) {
    pods.put(name, pod(name, uid, "Pending", null, false));
  }

  public static PodView pod(String name, String uid, String phase, String node, boolean term) {
    return new PodView(true, name, uid, null, phase, false, node, term, null, null, null);
  }

  public synchronized SlurmJobView setJob(
      long id, String state, String reason, List<String> nodes) {
    SlurmJobView old = jobs.get(id);
    SlurmJobView j =
        new SlurmJobView(id, old.name(), old.comment(), state, reason, nodes, 0, Instant.now());
    jobs.put(id, j);
    return j;
  }

  public synchronized long onlyJobId() {
    if (jobs.size() != 1) {
      throw new AssertionError("expected one job, have " + jobs.keySet());
    }
    return jobs.keySet().iterator().next();
  }

  /** The id of the job tagged with {@code uid} (the newest if several). */
  public synchronized long jobOf(String uid) {
    return jobs.values().stream()
        .filter(j -> j.name().equals(PlaceholderJob.nameFor(uid)))
        .mapToLong(SlurmJobView::id)
        .max()
        .orElseThrow();
  }

  public synchronized List<Condition> conditions(String type) {
    return conditions.stream().filter(c -> c.type().equals(type)).toList();
  }

  @Override
  public synchronized SlurmJobView submitPlaceholder(PlaceholderJob job) {
    submitAttempts++;
    if (refuseSubmit != null) {
      throw refusal(refuseSubmit);
    }
    for (SlurmJobView j : jobs.values()) {
      if (j.name().equals(job.name()) && !j.state().equals("CANCELLED")) {
        if (loseSubmitAnswer || loseSubmitAnswers-- > 0) {
          throw ApplicationFailure.newNonRetryableFailure("connection reset", "IOException");
        }
        return j;
      }
    }
    return submitNew(job);
  }

  /**
   * Slurm's refusal as the real activities report it (activities' {@code SlurmFailures}): a
   * non-retryable {@link SlurmActivities#REJECTED} failure whose cause is the Slurm client's own
   * exception, which reaches the workflow as a nested failure of that exception's type.
   */
  static ApplicationFailure refusal(String message) {
    return ApplicationFailure.newNonRetryableFailureWithCause(
        message,
        SlurmActivities.REJECTED,
        new IllegalStateException("submit job: Slurm error 2000: " + message));
  }

  /** Queues a new job for {@code job} (the answer may be lost on purpose). */
  private SlurmJobView submitNew(PlaceholderJob job) {
    submitted.add(job);
    long id = nextId++;
    SlurmJobView j = queued(id, job.name(), job.comment());
    jobs.put(id, j);
    runOnce(duringSubmit);
    duringSubmit = null;
    if (loseSubmitAnswer || loseSubmitAnswers-- > 0) {
      throw ApplicationFailure.newNonRetryableFailure("connection reset", "IOException");
    }
    // The real submit answers the job queued with no reason: Slurm gives one only later, as a
    // listing or re-read shows (PlaceholderSubmitter.submitNow).
    return new SlurmJobView(
        j.id(), j.name(), j.comment(), j.state(), null, j.nodes(), j.restartCount(), null);
  }

  /** A queued job {@code id} tagged with pod {@code uid} (name and comment). */
  public static SlurmJobView queued(long id, String uid) {
    return queued(id, PlaceholderJob.nameFor(uid), PlaceholderJob.commentFor(uid, "pod=test/x"));
  }

  /** The comment carries {@code uid} as its tag (whose job it is may follow after a space). */
  private static boolean taggedWith(String comment, String uid) {
    String tag = PlaceholderJob.COMMENT_PREFIX + uid;
    return comment.equals(tag) || comment.startsWith(tag + " ");
  }

  private static SlurmJobView queued(long id, String name, String comment) {
    return new SlurmJobView(id, name, comment, "PENDING", "Priority", List.of(), 0, null);
  }

  /**
   * Submits without looking for a job with the tag (what the real activity does on its first
   * attempt, when this worker knows no job for the tag); counted in {@link #firstSubmits}.
   */
  @Override
  public synchronized SlurmJobView submitFirstPlaceholder(PlaceholderJob job) {
    firstSubmits++;
    submitAttempts++;
    if (refuseSubmit != null) {
      throw refusal(refuseSubmit);
    }
    return submitNew(job);
  }

  @Override
  public synchronized List<SlurmJobView> findJobs(String podUid) {
    reads.add("find " + podUid);
    return jobs.values().stream()
        .filter(j -> j.name().equals(PlaceholderJob.nameFor(podUid)))
        .filter(j -> taggedWith(j.comment(), podUid))
        .toList();
  }

  @Override
  public synchronized SlurmJobView cancelJob(long jobId, String reason) {
    SlurmJobView j = jobs.get(jobId);
    if (j == null) {
      return new SlurmJobView(jobId, null, null, SlurmJobView.GONE, null, List.of(), 0, null);
    }
    if (!JobOutlook.finished(j)) {
      cancelled.add(jobId);
      actions.add("cancel " + jobId);
      return setJob(jobId, "CANCELLED", reason, j.nodes());
    }
    return j;
  }

  /** As {@link #cancelJob}, recorded as {@code release <id>}; the job ends COMPLETED. */
  @Override
  public synchronized SlurmJobView releaseJob(long jobId, String reason) {
    SlurmJobView j = jobs.get(jobId);
    if (j == null) {
      return new SlurmJobView(jobId, null, null, SlurmJobView.GONE, null, List.of(), 0, null);
    }
    if (!JobOutlook.finished(j)) {
      cancelled.add(jobId);
      released.add(jobId);
      actions.add("release " + jobId);
      return setJob(jobId, "COMPLETED", reason, j.nodes());
    }
    return j;
  }

  @Override
  public synchronized PodView bindPod(BindRequest r) {
    PodView p = pods.get(r.name());
    if (p == null || !p.uid().equals(r.uid())) {
      return PodView.absent(r.name());
    }
    if (p.k8sNode() != null && !p.k8sNode().equals(r.k8sNode())) {
      throw ApplicationFailure.newNonRetryableFailure("bound elsewhere", KubeActivities.REJECTED);
    }
    binds.add(r);
    p = pod(r.name(), r.uid(), "Running", r.k8sNode(), false);
    pods.put(r.name(), p);
    Runnable during = duringBind;
    duringBind = null;
    runOnce(during);
    return p;
  }

  /** Calls of {@link #placePod}, in order. */
  public final List<PlacementRequest> placements = new ArrayList<>();

  /**
   * As the real activity: the lookup, then the bind, then (bound there, not ending) the condition
   * and the event, each recorded where the separate calls record it.
   */
  @Override
  public synchronized Placement placePod(PlacementRequest r) {
    placements.add(r);
    String k8s = slurmToK8s.get(r.slurmNode());
    if (k8s == null) {
      return new Placement(null, null);
    }
    PodView p = bindPod(r.bindTo(k8s));
    if (p.exists() && !p.terminating() && !p.failed() && k8s.equals(p.k8sNode())) {
      setPodCondition(r.namespace(), r.name(), r.uid(), r.boundCondition(k8s));
      recordEvent(r.boundEvent(k8s));
    }
    return new Placement(k8s, p);
  }

  /** Calls of {@link #announceAndEvict}, in order. */
  public final List<AnnounceRequest> announcements = new ArrayList<>();

  /** As the real activity: the condition, the event, then the eviction (refusals as evictPod's). */
  @Override
  public synchronized Announced announceAndEvict(AnnounceRequest r) {
    announcements.add(r);
    setPodCondition(r.namespace(), r.name(), r.uid(), r.condition());
    recordEvent(r.event());
    return new Announced(evictPod(r.namespace(), r.name(), r.uid(), r.condition().message()));
  }

  @Override
  public synchronized PodView evictPod(String namespace, String name, String uid, String reason) {
    PodView p = pods.get(name);
    if (p == null || !p.uid().equals(uid)) {
      return PodView.absent(name);
    }
    if (refuseEvictions-- > 0) {
      return p; // refused for now: the pod stays as it is
    }
    evictions.add(name + ": " + reason);
    actions.add("evict " + name);
    p = pod(name, uid, p.phase(), p.k8sNode(), true);
    pods.put(name, p);
    Runnable during = duringEvict;
    duringEvict = null;
    runOnce(during);
    return p;
  }

  @Override
  public synchronized void setPodCondition(
      String namespace, String name, String uid, Condition condition) {
    conditions.add(condition);
    podConditions.computeIfAbsent(name, k -> new ArrayList<>()).add(condition);
  }

  /** The last condition of {@code type} set on pod {@code name}, or null. */
  public synchronized Condition lastCondition(String name, String type) {
    List<Condition> all = podConditions.getOrDefault(name, List.of());
    Condition last = null;
    for (Condition c : all) {
      if (c.type().equals(type)) {
        last = c;
      }
    }
    return last;
  }

  @Override
  public synchronized void recordEvent(EventRequest event) {
    events.add(event);
  }

  /** Who preempted a job, once {@link #preemptorAfter} lookups found none; null: never found. */
  public Preemptor preemptor;

  public int preemptorAfter;

  /** Every {@link #findPreemptor} call: job id and nodes. */
  public final List<String> preemptorLookups = new ArrayList<>();

  @Override
  public synchronized Preemptor findPreemptor(long jobId, List<String> nodes) {
    preemptorLookups.add(jobId + " on " + nodes);
    Instant at = Instant.parse("2024-05-01T10:00:00Z");
    if (preemptor == null || preemptorLookups.size() <= preemptorAfter) {
      return new Preemptor(jobId, nodes, at, 0, null, null, null);
    }
    return new Preemptor(
        jobId, nodes, at, preemptor.byJob(), preemptor.byPartition(), preemptor.byQos(), at);
  }

  @Override
  public synchronized String slurmNodeToK8sNode(String slurmNode) {
    return slurmToK8s.get(slurmNode);
  }

  @Override
  public synchronized PodView getPod(String namespace, String name) {
    reads.add("read " + name);
    PodView p = pods.get(name);
    return p == null ? PodView.absent(name) : p;
  }

  private static void runOnce(Runnable r) {
    if (r != null) {
      r.run();
    }
  }
}
