package dev.tandem.e2e;

import dev.tandem.cli.TandemCli;
import dev.tandem.dev.Manifests;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeSummary;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The crash suite's scenario: a NodeSet's whole life through the real stack, while {@link
 * WorkerKiller} kills the worker. Every wait polls Slurm, the pods or the NodeSet's status in
 * Kubernetes (or bounded queries, retried), so it goes on while no worker runs.
 *
 * <ol>
 *   <li>Apply NodeSet {@code e2e}: 3 replicas, image v1, {@code maxUnavailable: 1}; wait until the
 *       NodeSet says 3 ready and Slurm shows the 3 nodes in service.
 *   <li>Start a real job on {@code e2e-1} ({@code sbatch}), then scale up to 4.
 *   <li>An administrator drains {@code e2e-0} ({@code scontrol}); wait until the NodeSet counts it
 *       out (3 of 4 ready).
 *   <li>Rolling update to image v2. {@code e2e-0} is out already, so it is replaced at no cost; its
 *       drain must survive the replacement. The NodeSet sees it ready at the new revision, and for
 *       {@link #HOLD} after that no other node may be taken: the budget is spent on the
 *       administrator's node.
 *   <li>The administrator resumes {@code e2e-0}; the rollout goes on (idle {@code e2e-3}, {@code
 *       e2e-2}, then {@code e2e-1}). Once Slurm shows {@code e2e-1} draining for the update with
 *       its job running, the scenario kills the worker, cancels the job while no worker runs, and
 *       starts a new one. The rollout completes: 4 ready, 4 updated.
 *   <li>{@code tandem drain e2e-2} and {@code tandem undrain e2e-2}, run in process (retried while
 *       no worker answers); Slurm shows the manual drain, then the node in service.
 *   <li>Cordon the Kubernetes node hosting {@code e2e-1}: Slurm drains every node on it; uncordon:
 *       they serve again.
 *   <li>Jobs on all 4 nodes; scale down to 2. The victims ({@code e2e-3}, {@code e2e-2}: all are
 *       busy, so the highest ordinals) drain and wait. Once Slurm shows both draining with their
 *       jobs running, the scenario kills the worker and cancels those jobs while none runs. The
 *       victims' pods go and their Slurm nodes leave.
 *   <li>Cancel the remaining jobs; stop killing; {@link EndState} judges the end.
 * </ol>
 */
final class CrashScenario {
  static final String SET = "e2e";
  static final String ADMIN_REASON = "crash-suite-disk-check";
  static final Duration HOLD = Duration.ofSeconds(8);
  static final Duration STEP = Duration.ofMinutes(4);

  private final E2EStack e2e;
  private final ClusterView view;
  private final TemporalProbe temporal;
  private final InvariantMonitor monitor;
  private final WorkerKiller killer;
  private final Map<Long, String> jobs = new LinkedHashMap<>();
  private final Set<Long> allJobs = new java.util.LinkedHashSet<>();
  private final List<String> log = new ArrayList<>();
  private final long started = System.nanoTime();
  private String rev1;
  private String rev2;

  CrashScenario(
      E2EStack e2e, TemporalProbe temporal, InvariantMonitor monitor, WorkerKiller killer) {
    this.e2e = e2e;
    this.view = new ClusterView(e2e, SET);
    this.temporal = temporal;
    this.monitor = monitor;
    this.killer = killer;
  }

  List<String> log() {
    return List.copyOf(log);
  }

  String finalRevision() {
    return rev2;
  }

  /** Steps 1 to 8; step 9 is the caller's ({@link #cancelRemainingJobs}, then {@link EndState}). */
  void run() throws Exception {
    createAndScaleUp();
    adminDrainThenRollingUpdate();
    manualDrainAndUndrain();
    cordonAndUncordon();
    scaleDownAroundJobs();
  }

  // ---- steps ----

  private void createAndScaleUp() throws Exception {
    step(1, "apply NodeSet " + SET + " with 3 replicas");
    e2e.apply(Manifests.nodeSet(SET, 3, "slurmd:v1", ""));
    view.await("3 ready", STEP, () -> view.statusInt("readyReplicas") == 3 && servingAll(0, 1, 2));
    rev1 = view.statusText("updateRevision");

    step(2, "a job on e2e-1, then scale up to 4");
    sbatch(SET + "-1");
    e2e.patchSpec(SET, "{\"replicas\":4}");
    view.await(
        "4 ready",
        STEP,
        () ->
            view.statusInt("replicas") == 4
                && view.statusInt("readyReplicas") == 4
                && view.serving(SET + "-3"));
  }

  private void adminDrainThenRollingUpdate() throws Exception {
    String admin = SET + "-0";
    step(3, "an administrator drains " + admin);
    e2e.scontrol(admin, "State=DRAIN Reason=" + ADMIN_REASON);
    monitor.adminDrained(admin, ADMIN_REASON);
    view.await("the NodeSet counts " + admin + " out", STEP, () -> readyIs(3));

    step(4, "rolling update to image v2 while " + admin + " is drained by the administrator");
    monitor.rollingUpdate(Set.of(pod(0), pod(1), pod(2), pod(3)), 1);
    e2e.patchSpec(
        SET,
        "{\"template\":{\"spec\":{\"containers\":[{\"name\":\"slurmd\",\"image\":\"slurmd:v2\"}]}}}");
    view.await(
        "a new revision",
        STEP,
        () ->
            view.statusText("updateRevision") != null
                && !rev1.equals(view.statusText("updateRevision")));
    rev2 = view.statusText("updateRevision");
    view.await(
        admin + " replaced at the new revision, still drained by the administrator",
        STEP,
        () -> view.replacedAndRegistered(admin, rev2) && view.drainedWith(admin, ADMIN_REASON));
    view.await(
        "the NodeSet sees " + admin + " ready at the new revision",
        STEP,
        () -> nodeSetShows(admin, NodePhase.READY, rev2));
    long holdEnd = System.nanoTime() + HOLD.toNanos();
    while (System.nanoTime() < holdEnd) {
      for (int i = 1; i <= 3; i++) {
        String other = pod(i);
        if (!untouched(other)) {
          throw new AssertionError(
              "the rollout took "
                  + other
                  + " while "
                  + admin
                  + " was drained by an administrator (maxUnavailable 1): "
                  + view.node(other)
                  + " "
                  + view.pod(other).map(ClusterView::revision));
        }
      }
      Thread.sleep(ClusterView.EVERY.toMillis());
    }
    note("the rollout waited " + HOLD.toSeconds() + "s with " + admin + " drained by the admin");

    step(5, "the administrator resumes " + admin + "; the rollout goes on");
    monitor.adminLifted(admin);
    e2e.scontrol(admin, "State=RESUME");
    String busy = pod(1);
    long job = jobOn(busy);
    view.await(
        busy + " draining for the update with its job running",
        STEP,
        () ->
            view.drainedWith(busy, "tandem:update:")
                && view.jobRunning(job)
                && view.pod(busy).map(p -> rev1.equals(ClusterView.revision(p))).orElse(false));
    killer.killNow(
        busy + " draining for the update with its job running; the job ends while no worker runs",
        () -> cancel(job));
    view.await(
        "the rollout complete: 4 ready at the new revision",
        STEP,
        () ->
            view.statusInt("updatedReplicas") == 4
                && readyIs(4)
                && rev2.equals(view.statusText("currentRevision"))
                && servingAll(0, 1, 2, 3));
    monitor.rollingUpdateDone();
  }

  private void manualDrainAndUndrain() throws Exception {
    String node = pod(2);
    step(6, "tandem drain " + node + ", then tandem undrain");
    tandem("drain", node, "--reason", "crash-suite maintenance");
    view.await(
        node + " drained by tandem drain",
        STEP,
        () -> view.drainedWith(node, "tandem:manual: crash-suite maintenance"));
    tandem("undrain", node);
    view.await(node + " in service again", STEP, () -> view.serving(node));
  }

  private void cordonAndUncordon() throws Exception {
    Pod p = view.pod(pod(1)).orElseThrow();
    String k8sNode = p.getSpec().getNodeName();
    List<String> on =
        view.pods().stream()
            .filter(x -> k8sNode.equals(x.getSpec().getNodeName()))
            .map(x -> x.getMetadata().getName())
            .sorted()
            .toList();
    step(7, "cordon " + k8sNode + " (hosting " + on + "), then uncordon");
    e2e.annotateCordonReason(k8sNode, "crash-suite kernel update");
    e2e.cordon(k8sNode);
    view.await(
        on + " drained for the cordon",
        STEP,
        () -> on.stream().allMatch(n -> view.drainedWith(n, "tandem:k8s-cordon:")));
    e2e.uncordon(k8sNode);
    view.await(on + " in service again", STEP, () -> on.stream().allMatch(view::serving));
  }

  private void scaleDownAroundJobs() throws Exception {
    step(8, "jobs on all 4 nodes, then scale down to 2");
    for (int i = 0; i < 4; i++) {
      sbatch(pod(i));
    }
    view.await("the NodeSet sees all 4 busy", STEP, () -> allBusy(4));
    e2e.patchSpec(SET, "{\"replicas\":2}");
    List<String> victims = List.of(pod(3), pod(2));
    view.await(
        victims + " draining for the scale-down with their jobs running",
        STEP,
        () ->
            victims.stream()
                .allMatch(
                    v ->
                        view.drainedWith(v, "tandem:scale-down:")
                            && view.jobRunning(jobOn(v))
                            && view.pod(v).isPresent()));
    killer.killNow(
        victims + " draining for the scale-down with jobs; the jobs end while no worker runs",
        () -> {
          for (String v : victims) {
            cancel(jobOn(v));
          }
        });
    view.await(
        "the victims' pods gone and their Slurm nodes removed",
        STEP,
        () -> victims.stream().allMatch(v -> view.pod(v).isEmpty() && !view.listed(v)));
    view.await(
        "2 replicas, 2 ready",
        STEP,
        () -> view.statusInt("replicas") == 2 && readyIs(2) && servingBusy(0, 1));
  }

  /** Step 9, first half: the jobs left on the remaining nodes end (the scenario cancels them). */
  void cancelRemainingJobs() throws Exception {
    step(9, "cancel the remaining jobs");
    for (Map.Entry<Long, String> j : new ArrayList<>(jobs.entrySet())) {
      cancel(j.getKey());
    }
  }

  /** Cancels every job of the scenario (cleaning up after a failure). */
  void cancelAllQuietly() {
    for (Long id : allJobs) {
      try {
        e2e.scancel(id);
      } catch (IOException | InterruptedException | RuntimeException e) {
        // already gone
      }
    }
  }

  Map<Long, String> jobs() {
    return Map.copyOf(jobs);
  }

  // ---- helpers ----

  private static String pod(int ordinal) {
    return SET + "-" + ordinal;
  }

  private void sbatch(String node) throws Exception {
    long id = e2e.sbatch(node, 3600);
    jobs.put(id, node);
    allJobs.add(id);
    view.await("job " + id + " running on " + node, STEP, () -> view.jobRunning(id));
    monitor.jobRunning(id, node);
  }

  private long jobOn(String node) {
    long id = -1;
    for (Map.Entry<Long, String> j : jobs.entrySet()) {
      if (j.getValue().equals(node)) {
        id = j.getKey(); // the latest
      }
    }
    return id;
  }

  private void cancel(long id) throws Exception {
    monitor.jobCancelRequested(id);
    e2e.scancel(id);
    jobs.remove(id);
  }

  private boolean servingAll(int... ordinals) {
    for (int i : ordinals) {
      if (!view.serving(pod(i))) {
        return false;
      }
    }
    return true;
  }

  /** In service and running the scenario's job. */
  private boolean servingBusy(int... ordinals) {
    for (int i : ordinals) {
      var n = view.node(pod(i));
      if (n.isEmpty() || n.get().down() || !n.get().flags().isEmpty()) {
        return false;
      }
    }
    return true;
  }

  private boolean readyIs(int n) {
    return view.statusInt("readyReplicas") == n;
  }

  /** Not touched by the rollout: at the old revision, not being deleted, no Tandem drain. */
  private boolean untouched(String pod) {
    boolean podOld =
        view.pod(pod)
            .map(
                p ->
                    rev1.equals(ClusterView.revision(p))
                        && p.getMetadata().getDeletionTimestamp() == null)
            .orElse(false);
    boolean noDrain = view.node(pod).map(n -> !n.drainFlag()).orElse(false);
    return podOld && noDrain && !monitor.podDeletions().containsKey(pod);
  }

  /** The NodeSet workflow's own view (what its planner decides from); false while none answers. */
  private boolean nodeSetShows(String pod, NodePhase phase, String rev) {
    try {
      for (NodeSummary n : temporal.nodeSet(SET).nodes()) {
        if (n.pod().equals(pod)) {
          return n.phase() == phase && rev.equals(n.revision());
        }
      }
    } catch (RuntimeException e) {
      // no worker right now
    }
    return false;
  }

  private boolean allBusy(int n) {
    try {
      return temporal.nodeSet(SET).nodes().stream()
              .filter(x -> x.slurmState().startsWith("alloc") || x.slurmState().startsWith("mixed"))
              .count()
          == n;
    } catch (RuntimeException e) {
      return false;
    }
  }

  /**
   * {@code tandem ...} in this JVM against the stack's Temporal; retried (bounded) while it exits 1
   * (no worker answers right after a kill). A drain or undrain signal sent twice is harmless.
   */
  private void tandem(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.add("--address");
    all.add(e2e.stack.temporalAddress());
    String last = "";
    for (int attempt = 1; attempt <= 8; attempt++) {
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      int code =
          TandemCli.run(new PrintWriter(out), new PrintWriter(err), all.toArray(String[]::new));
      if (code == 0) {
        note(
            "tandem "
                + String.join(" ", args)
                + ": "
                + out.toString().lines().findFirst().orElse(""));
        return;
      }
      last = "exit " + code + ": " + err;
      if (code != 1) {
        break;
      }
      try {
        Thread.sleep(2000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    throw new AssertionError("tandem " + String.join(" ", args) + " failed: " + last);
  }

  private void step(int n, String what) {
    note("step " + n + ": " + what);
  }

  private void note(String what) {
    String line =
        String.format(
            "%6.1fs [activity %d] %s",
            (System.nanoTime() - started) / 1e9, killer.cumulative(), what);
    log.add(line);
    System.out.println("crash suite: " + line);
  }
}
