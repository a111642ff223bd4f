package dev.tandem.workflows.support;

import io.temporal.workflow.Workflow;
import java.util.Map;

/**
 * Every {@code Workflow.getVersion} change id, in one place, with what it guards. A change to what
 * a workflow decides, or to which activities, timers, signals or child workflows it issues in which
 * order, must not alter the replay of a history recorded before it: workflows started on the old
 * code keep the old path (until they continue as new), new ones take the new path. See
 * docs/upgrading.md for how to add one; never remove one while a workflow that may have recorded it
 * can still run.
 */
public final class Versions {
  private Versions() {}

  /**
   * Version 1: a drain is set while Slurm shows the node NOT_RESPONDING (Slurm 22.05 pings the
   * slurmd after every UNDRAIN or RESUME; a dead slurmd is exactly the node that must take no new
   * job). Before: the drain waited until the node responded. Node workflow.
   */
  public static final String DRAIN_NOT_RESPONDING = "drain-not-responding";

  /**
   * Version 1: a node counts as available (for maxUnavailable, scale-down order and readyReplicas)
   * only when it is ready and Slurm serves it (not drained, down or not responding); rolling-update
   * candidates already unavailable are updated free of budget; the NodeSet's Ready condition and
   * messages follow the numbers; SlurmReachable and KubernetesReachable come from the watchers'
   * clusterHealth signal. Before: phase ready was enough. NodeSet workflow.
   */
  public static final String HONEST_STATUS = "honest-status";

  /**
   * Version 1: a pod the cluster refuses as invalid (ensurePod fails with KubePodRejected) is not
   * created again at that revision: the node workflow reports the rejection and waits for another
   * target; the NodeSet workflow shows InvalidSpec (reason PodRejected), stops rolling that
   * revision out, sends the nodes (and starts new ones) at the last revision its pods ran, and
   * keeps condition messages to one line. Node workflow (at the first rejection) and NodeSet
   * workflow (run start, see {@code Rules}).
   */
  public static final String POD_REJECTED = "pod-rejected";

  /**
   * Version 1: a drained node (drained in Slurm, no job runs) labels its pod {@code
   * tandem.dev/evictable=true}, so the NodeSet's PodDisruptionBudget lets Kubernetes evict it, and
   * removes the label before its drain is lifted (or it drains again); a pod the pod watcher
   * reports lost while the node is drained is recreated at once (before: on the next resync); a pod
   * that waits unschedulable or failing to start says so as the node's problem at once (before:
   * after the slow threshold). Node workflow.
   */
  public static final String EVICTABLE = "evictable";

  /**
   * Version 1: the scheduling workflows (pod and group) run their activities as local activities
   * (same calls, order, timeouts and retries; recorded as markers instead of activity tasks), so a
   * pod costs about a fifth of the Temporal round trips. Pod and group workflows, at run start.
   */
  public static final String LOCAL_SCHEDULING_CALLS = "local-scheduling-calls";

  /**
   * Version 1: a remediation whose policy has a health check runs it (HealthChecking) after a
   * rung's re-check passed, before Returning. Reached only with {@code
   * spec.remediation.healthCheck} set, which no history before it has. Remediation workflow.
   */
  public static final String REMEDIATION_HEALTH_CHECK = "remediation-health-check";

  /**
   * Version 1: a RollingUpdate with {@code rollingUpdate.topologyKey} goes one topology domain at a
   * time: the NodeSet workflow reads the label of the Kubernetes nodes its pods run on (activity
   * {@code nodeLabelValues}) and updates at most maxUnavailable nodes of one domain, never taking a
   * node while one of another domain is out ({@code TopologyRollout}). Reached only with a topology
   * key, which no history before it has. NodeSet workflow.
   */
  public static final String TOPOLOGY_ROLLOUT = "topology-rollout";

  /**
   * Version 1: a node at rest (ready or drained, no signal) doubles its safety re-read wait from
   * the resync interval up to {@code Tuning.restMaxSeconds} while re-reads find nothing the
   * watchers did not report; any signal or news starts again at the resync interval. Only timer
   * durations change. Node workflow, at run start.
   */
  public static final String REST_BACKOFF = "rest-backoff";

  /**
   * Version 1: the remediation budget continues as new once its history is long even while signals
   * keep coming (before, only after an hour without any). Asked only once the history is past the
   * bound, which no history recorded before it reaches. Remediation budget workflow.
   */
  public static final String BUDGET_BOUND = "budget-bound";

  /**
   * Version 1: a pod replaced (update, or a lost or ended pod recreated) has its Slurm node record
   * removed after the old pod is gone and before the new one is created ({@code FreshRecord}), so a
   * dynamic node registers with its new settings. Node workflow, at the first replacement.
   */
  public static final String FRESH_RECORD = "fresh-record";

  /**
   * Version 1: a report the NodeSet workflow did not receive (the signal failed: no run of it at
   * that moment, as between two runs of a continue-as-new on the local Temporal) is sent again on
   * the node's next pass instead of at the next heartbeat (ten resync periods). Once per streak of
   * failures, so a node without a NodeSet sends no more than before. Asked only when a report
   * failed. Node workflow.
   */
  public static final String REPORT_RESEND = "report-resend";

  /**
   * Version 1: a NodeSet with more node workflows to start than one batch starts them in batches of
   * {@code NodeSetNodes.STARTS_PER_TASK}, one workflow task each (before: all in one task, which
   * past ~4,000 nodes exceeds the 4 MiB gRPC message a task completes with). Asked only when there
   * are more starts than one batch. NodeSet workflow.
   */
  public static final String BATCHED_STARTS = "batched-starts";

  /**
   * Version 1: the node workflow's calls (pod reads and writes, events, Slurm reads, drains,
   * undrains, record removal) run as local activities, recorded as markers instead of activity
   * tasks: three quick attempts, then (if retrying can help) the same call as a regular activity,
   * so an outage still shows in the Temporal UI as a pending activity retrying. A cordoned node's
   * drain then reaches Slurm one round trip after the signal (the report to the NodeSet) instead of
   * four (event, report, read, drain), which under load took seconds each. Node workflow, at run
   * start.
   */
  public static final String LOCAL_NODE_CALLS = "local-node-calls";

  /**
   * Version 1: the node workflow sends its report to the NodeSet workflow from a workflow thread of
   * its own and goes on at once (before: it waited for the signal to be delivered, one more round
   * trip through the server before the drain a cordon asked for reached Slurm). Whether a report
   * arrived is looked at on the next report; the last one is waited for before the workflow
   * continues as new or ends. Node workflow, at run start.
   */
  public static final String ASYNC_REPORT = "async-report";

  /**
   * Version 1: a pod's first submit, made in the workflow's first task (no earlier attempt can have
   * made one), submits without first listing Slurm's jobs for the pod's tag; the workflow then
   * knows its job is the pod's only one and cancels it alone when the pod ends (no listing either).
   * A second job with the pod's tag, seen at any time, is cancelled at once. Pod workflow, at run
   * start.
   */
  public static final String SOLE_SUBMIT = "sole-submit";

  /**
   * Version 1: the NodeSet sends the update or delete signals of one pass to its nodes all at once,
   * in one workflow task, and then waits for them (before: one at a time, a round trip through the
   * server each). Asked only when a pass signals two nodes or more. NodeSet workflow.
   */
  public static final String PARALLEL_SIGNALS = "parallel-signals";

  /**
   * Version 1: a node workflow the NodeSet finds already running when it starts one is probed until
   * it reports or is found gone (it may be an earlier node of the same name about to end), instead
   * of being taken for the NodeSet's own until 30 resync periods of silence. Asked only when a
   * start is refused as already started. NodeSet workflow.
   */
  public static final String START_PROBE = "start-probe";

  /**
   * Version 1: a spec of another custom resource of the same name (another uid) that reaches a
   * NodeSet while it is being deleted is kept for a run of its own, started by continue-as-new once
   * the deletion is done; before, the deleting run took it for its own spec and ended, and the new
   * NodeSet waited for the watcher's next resync. Asked only when such a spec arrives. NodeSet
   * workflow.
   */
  public static final String SUCCESSOR = "successor";

  /**
   * Version 1: a node at rest starts its safety re-read back-off again only for news (a pod or
   * Slurm view that differs from the one the last pass ended with, by signal or by re-read), not
   * for every signal: the watchers' periodic resends of unchanged views (every informer resync)
   * kept every node at the shortest waits. Asked at the start of each node run. Node workflow.
   */
  public static final String REST_NEWS = "rest-news";

  /**
   * Version 1: a pod's {@code SlurmScheduled=False} ({@code JobPending}) condition is written only
   * once its placeholder job has waited {@code QUEUED_NOTICE_SECONDS} in Slurm's queue, not right
   * after the submit: a job Slurm starts at once goes straight to {@code SlurmScheduled=True}, and
   * its bind no longer waits behind a condition write. Asked at the start of each pod run. Pod
   * workflow.
   */
  public static final String QUEUED_NOTICE = "queued-notice";

  /**
   * Version 1: a node at rest whose timer-driven re-read found nothing the watchers did not report
   * waits the longest rest interval at once (less a per-node fraction of a quarter), instead of
   * doubling its wait from the resync interval: a fleet's cost at rest no longer decays only as 1 /
   * the time since its last change. Asked at the start of each node run. Node workflow.
   */
  public static final String REST_SETTLED = "rest-settled";

  /**
   * Version 1: a node reports to its NodeSet once per pass, where the pass ends (waits, or the
   * workflow ends), not after every phase change within it: an update of an idle node went draining
   * → drained → updating in one workflow task and sent three reports, of which the NodeSet could
   * use only the last (in {@code tandem bench fleet}, 8 reports per node cycle, 60 signals a second
   * into the NodeSet during a rollout of 1,000 nodes). The NodeSet counts a node it told to update
   * as out of service until its report shows it back, so no report it skips changes a budget. Asked
   * at the start of each node run. Node workflow.
   */
  public static final String PASS_REPORTS = "pass-reports";

  /**
   * Version 1: the NodeSet writes its status with a local activity (the same call, run inside the
   * workflow task; three attempts within 3 s, then the next pass a poll interval later), not a
   * regular activity. A regular one cost a task-queue round trip and another workflow task queued
   * behind the nodes' tasks, and the loop waited for it: in {@code tandem bench fleet} (1,000
   * nodes) 113 writes held a 143 s rollout for 95 s. Asked at the start of each NodeSet run.
   * NodeSet workflow.
   */
  public static final String LOCAL_STATUS_WRITE = "local-status-write";

  /**
   * Version 1: a NodeSet that is busy (not every desired node ready at the update revision)
   * continues as new only at twice {@code maxHistoryEvents}, so that it does so when the rollout is
   * over rather than in the middle of it, where reports arriving at dozens a second made the server
   * refuse the task that continues as new again and again ({@code ContinueAsNewTiming}). Asked at
   * the start of each NodeSet run. NodeSet workflow.
   */
  public static final String QUIET_CONTINUE = "quiet-continue";

  /**
   * Version 1: a node workflow ignores a pod view signalled about an earlier pod of its name
   * (another uid, created before the one it holds; {@code Observations.earlierPod}). Such a view,
   * late from a watcher whose watch had just reconnected, took the new pod for lost right after an
   * update: the node drained and recreated a pod that was running. Asked only when such a view
   * arrives. Node workflow.
   */
  public static final String EARLIER_POD = "earlier-pod";

  /**
   * Version 1: the NodeSet's status write runs as a regular activity that the pass starts and does
   * not wait for (one write in flight at a time; its answer wakes the loop, and a status that
   * changed meanwhile is written next). As a local activity it ran inside the workflow task, and
   * the loop, with the reports that arrived meanwhile, waited for it: in {@code tandem bench fleet}
   * (1,000 nodes: provision 35 s, rollout 83 s, then a cordon) 196 writes of 0.33 s on average held
   * the NodeSet for 64 s, while freed rollout slots stayed empty. Asked at the start of each
   * NodeSet run. NodeSet workflow.
   */
  public static final String ASYNC_STATUS_WRITE = "async-status-write";

  /**
   * Version 1: a loop's wait takes a timer still running from an earlier wait whose deadline is not
   * after its own, instead of starting one ({@code WaitTimers}). The Java SDK (1.38) leaves the
   * timer of a wait that a signal ended running, and each such timer later fired into a workflow
   * task that changed nothing: in {@code tandem bench fleet} (1,000 nodes) a node's update cycle
   * left five or six 5 s timers, and the NodeSet one per pass of the rollout. Asked at the start of
   * each run. Node and NodeSet workflows.
   */
  public static final String SHARED_WAIT_TIMERS = "shared-wait-timers";

  /**
   * Version 1: a NodeSet whose continue-as-new the server refused (a report arrived while the task
   * ran) does not continue as new in the retry, which replays the whole history and would be
   * refused again, but in the short task after it ({@code RefusedContinues}). In {@code tandem
   * bench fleet} (1,000 nodes) three refusals in a row held a rollout for 7.8 s. Asked at the start
   * of each NodeSet run.
   */
  public static final String CONTINUE_AFTER_REFUSAL = "continue-after-refusal";

  /**
   * Version 1: a pod whose placeholder job runs is bound in one call ({@code
   * SchedulingActivities.placePod}): the Slurm node's Kubernetes node, the bind, the {@code
   * SlurmScheduled=True} condition (one strategic merge patch carrying the pod's uid, where it was
   * a read and a JSON patch) and the {@code Scheduled} event, instead of four local activities one
   * after the other. In {@code tandem bench scheduling} on two shared cores every call costs CPU
   * that the pods' throughput is bound by. Asked at the start of each pod run. Pod workflow.
   */
  public static final String ONE_CALL_BIND = "one-call-bind";

  /**
   * Version 1: the pod workflow upserts its search attributes once per workflow task, where it
   * waits or ends, with every value that changed in one command ({@code SearchAttributes#flush}),
   * instead of one upsert per change: a pod bound and then deleted made 9 upserts (phase after
   * phase within one task, each a history event and, on a real server, a visibility write) and
   * makes 3. Asked at the start of each pod run. Pod workflow.
   */
  public static final String BATCHED_SEARCH_ATTRIBUTES = "batched-search-attributes";

  /**
   * Version 1: a pod whose job was preempted or ended is told why and evicted in one call ({@code
   * SchedulingActivities.announceAndEvict}: the condition as one strategic merge patch carrying the
   * pod's uid, the event, the eviction), instead of three local activities one after the other with
   * a read before the condition. Preemption → eviction waits for all of them. Asked at the start of
   * each pod run. Pod workflow.
   */
  public static final String ONE_CALL_EVICT = "one-call-evict";

  /**
   * Version 1: a wait that a signal ended is taken as news even when its timer fired too before the
   * workflow task ran. The SDK's {@code Workflow.await(timeout, condition)} answers "timed out"
   * whenever its timer has fired by then, so a task that started late (a busy worker, a backlog on
   * the task queue) treated the watcher's news as a silent timeout and re-read the pod and listed
   * the pod's Slurm jobs before acting on what the signal already said: under a backlog, every
   * waiting pod paid a full job listing on its way to its bind (a gang: a read of every member and
   * the listing). Asked at the start of each run. Pod and pod group workflows.
   */
  public static final String NEWS_OVER_TIMER = "news-over-timer";

  /**
   * Version 1: when a pass finds both the pod (a gang: a member) gone and its job ended by Slurm
   * (preempted, failed, timed out), the job's ending is what the workflow records and, for a gang,
   * what it tells the members still there. A pod evicted for its preempted job with a short grace
   * period can be gone before the task that evicted it completes; the server refuses that task's
   * completion (a signal arrived meanwhile), and its retry sees both at once. Before: such a pod's
   * history said "pod-ended: pod deleted", and a gang's other members had their SlurmPreempted
   * condition replaced by SlurmJobEnded (GroupMemberEnded). Found with {@code tandem dev}. Asked at
   * the start of each run. Pod and pod group workflows.
   */
  public static final String JOB_ENDING_FIRST = "job-ending-first";

  /**
   * Version 1: when several members of a gang are gone by the time a pass runs, the group's ending
   * names the one that went first (signals in arrival order, then re-reads), not the first in name
   * order. A retried task sees every deletion that arrived meanwhile: the members this workflow
   * evicted because one was deleted are gone too. Before: the history (and any member still there)
   * was told that the member first by name had ended the group. Found with {@code tandem dev}.
   * Asked at the start of each run. Pod group workflow.
   */
  public static final String FIRST_GONE_MEMBER = "first-gone-member";

  /**
   * Version 1: a placeholder whose pod (a gang: every chosen member) has stopped, succeeded, failed
   * or gone, is released (ended at once) rather than cancelled: a cancel leaves its nodes held for
   * Slurm's {@code KillWait} (30 s by default) after the pod is done, since the placeholder ignores
   * SIGTERM to cover a pod that is still stopping. A pod that is only being deleted (it may still
   * run) is cancelled as before. Asked at the start of each run. Pod and pod group workflows.
   *
   * <p>Version 2: a pod being deleted (a gang: members being evicted or deleted) is waited for, its
   * job still held, until it is gone or has ended, and the job is then released: the nodes are free
   * when the pod stops, not {@code KillWait} after its deletion began. The wait lasts at most the
   * pod's grace period plus the grace margin; then the pod is read once more, and a pod still there
   * has its job cancelled (KillWait covers it, as in version 1).
   */
  public static final String RELEASE_STOPPED = "release-stopped";

  /**
   * Version 1: a pod's first task that starts between {@code PlaceholderCare.FIRST_TASK_WINDOW}
   * (half the task timeout) and {@code PlaceholderCare.WIDE_FIRST_TASK_WINDOW} (the task timeout
   * less 1 s) after the run began also submits without the listing ({@link #SOLE_SUBMIT}): a task
   * that replaces one that timed out starts at least the task timeout after the run began, so every
   * task sooner than that is the first try. Under a backlog, 12–44% of a run's 200 pods had their
   * first task start later than half the timeout and waited for a job listing before their submit
   * (docs/benchmarks.md, "Fifteenth session"). Asked only by a first task in that band. Pod
   * workflow.
   */
  public static final String WIDE_FIRST_WINDOW = "wide-first-window";

  /**
   * Version 1: a pod whose placeholder waits in Slurm's queue starts no timer of its own for the
   * queued notice ({@link #QUEUED_NOTICE}): the Slurm watcher signals a job still waiting 6 s after
   * it first listed it, once, and the notice is written on that signal (or on the resync pass, if
   * no signal came). Before: the pending phase waited at most until the notice was due, 5 s after
   * the submit. For a job Slurm started sooner, which is most of them, that timer was left running
   * and fired into the pod's last task while it completed, so the server refused the completion
   * ({@code UnhandledCommand}): a replay and a second release, for 57 of the 300 pods of one {@code
   * tandem bench scheduling} run, none of the warm-up's 100 after it (docs/benchmarks.md,
   * "Sixteenth session"). Asked by a pending pass that finds the notice not yet due. Pod workflow.
   */
  public static final String SIGNALLED_NOTICE = "signalled-notice";

  /**
   * Version 1: a pod workflow that learned its pod's end (gone or going) from one of its own calls
   * rather than from the watcher (the eviction's answer, a bind's answer that found the pod
   * deleted, a re-read) waits, at most a poll interval, for the watcher's signal of that change
   * before it completes. Before: it completed in the same task, the watcher's signal arrived while
   * that task ran, and the server refused the completion ({@code UnhandledCommand}): a replay, for
   * 18–20 of the 20 preempted pods of every {@code tandem bench scheduling} run and up to 53 of its
   * 200 measured pods (docs/benchmarks.md, "Sixteenth session"). Asked only by a run about to
   * complete with such news unheard. Pod workflow.
   */
  public static final String HEAR_THE_END = "hear-the-end";

  /**
   * Version 1: a call's failure is Slurm's refusal for good when the activity's own failure is of
   * type {@code SlurmRejected}, also when it carries a cause, as the real activities' failures do
   * (the Slurm client's exception). Before: only the innermost failure's type counted, so with the
   * real activities a placeholder Slurm refused (a pod asking for more than any node has, an
   * unknown partition) was submitted again every poll, and the pod was never told it is invalid; on
   * Slurm 22.05 a refused submit can leave a FAILED job with the tag (BadConstraints), which the
   * next submit found and the pod was evicted for. Asked only for a refusal with a cause. Pod and
   * group workflows.
   */
  public static final String REFUSAL_WITH_CAUSE = "refusal-with-cause";

  /**
   * Version 1: a gang whose job still waits in Slurm's queue, with a reason Slurm gives, tells
   * every member that reason once ({@code SlurmScheduled=False}, {@code JobPending}, "Slurm job N
   * queued for group G (3 nodes): Resources"). Before: the members were told "queued" at the submit
   * and nothing more while the job waited, so a gang larger than the nodes up in its partition
   * waited with no word of why on its pods. Asked only by a pending pass that has a reason to tell.
   * Group workflow.
   */
  public static final String GROUP_QUEUED_REASON = "group-queued-reason";

  /** The newest version of each change id; every call site asks with the same maximum. */
  private static final Map<String, Integer> LATEST =
      Map.ofEntries(
          Map.entry(DRAIN_NOT_RESPONDING, 1),
          Map.entry(HONEST_STATUS, 1),
          Map.entry(POD_REJECTED, 1),
          Map.entry(EVICTABLE, 1),
          Map.entry(LOCAL_SCHEDULING_CALLS, 1),
          Map.entry(REMEDIATION_HEALTH_CHECK, 1),
          Map.entry(TOPOLOGY_ROLLOUT, 1),
          Map.entry(REST_BACKOFF, 1),
          Map.entry(BUDGET_BOUND, 1),
          Map.entry(FRESH_RECORD, 1),
          Map.entry(REPORT_RESEND, 1),
          Map.entry(BATCHED_STARTS, 1),
          Map.entry(LOCAL_NODE_CALLS, 1),
          Map.entry(ASYNC_REPORT, 1),
          Map.entry(SOLE_SUBMIT, 1),
          Map.entry(PARALLEL_SIGNALS, 1),
          Map.entry(START_PROBE, 1),
          Map.entry(SUCCESSOR, 1),
          Map.entry(REST_NEWS, 1),
          Map.entry(QUEUED_NOTICE, 1),
          Map.entry(REST_SETTLED, 1),
          Map.entry(PASS_REPORTS, 1),
          Map.entry(LOCAL_STATUS_WRITE, 1),
          Map.entry(QUIET_CONTINUE, 1),
          Map.entry(EARLIER_POD, 1),
          Map.entry(ASYNC_STATUS_WRITE, 1),
          Map.entry(SHARED_WAIT_TIMERS, 1),
          Map.entry(CONTINUE_AFTER_REFUSAL, 1),
          Map.entry(ONE_CALL_BIND, 1),
          Map.entry(BATCHED_SEARCH_ATTRIBUTES, 1),
          Map.entry(ONE_CALL_EVICT, 1),
          Map.entry(NEWS_OVER_TIMER, 1),
          Map.entry(JOB_ENDING_FIRST, 1),
          Map.entry(FIRST_GONE_MEMBER, 1),
          Map.entry(RELEASE_STOPPED, 2),
          Map.entry(WIDE_FIRST_WINDOW, 1),
          Map.entry(SIGNALLED_NOTICE, 1),
          Map.entry(HEAR_THE_END, 1),
          Map.entry(REFUSAL_WITH_CAUSE, 1),
          Map.entry(GROUP_QUEUED_REASON, 1));

  /**
   * The version of {@code changeId} this workflow run takes: {@link Workflow#DEFAULT_VERSION} (-1)
   * when it replays a history recorded before the change, else the newest. The first answer holds
   * for the rest of the run; continue-as-new asks again.
   */
  public static int of(String changeId) {
    Integer latest = LATEST.get(changeId);
    if (latest == null) {
      throw new IllegalArgumentException("unknown change id " + changeId);
    }
    return Workflow.getVersion(changeId, Workflow.DEFAULT_VERSION, latest);
  }
}
