package dev.tandem.e2e;

import dev.tandem.dev.Manifests;
import dev.tandem.workflows.model.NodePhase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
 *       no worker answers); Slurm shows the manual drain, then the node in service. Again, but an
 *       administrator drains the node over Tandem's drain before the undrain: the node's workflow
 *       returns to ready without holds and the administrator's drain stays until they resume it.
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

  final E2EStack e2e;
  final ClusterView view;
  final TemporalProbe temporal;
  final InvariantMonitor monitor;
  final WorkerKiller killer;
  final ScenarioJobs jobs;
  private final InProcessCli cli;
  private final List<String> log = new ArrayList<>();
  private final long started = System.nanoTime();
  private String rev1;
  private String rev2;

  CrashScenario(
      E2EStack e2e, TemporalProbe temporal, InvariantMonitor monitor, WorkerKiller killer) {
    this.e2e = e2e;
    this.view = new ClusterView(e2e, SET);
    this.jobs = new ScenarioJobs(e2e, view, monitor);
    this.cli = new InProcessCli(e2e.stack.temporalAddress());
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
    MaintenanceSteps later = new MaintenanceSteps(this);
    later.manualDrainAndUndrain();
    later.cordonAndUncordon();
    later.scaleDownAroundJobs();
  }

  // ---- steps ----

  private void createAndScaleUp() throws Exception {
    List<String> strays = jobs.cancelStrays(SET + "-");
    if (!strays.isEmpty()) {
      note("cancelled jobs an earlier run left on " + SET + " nodes: " + strays);
    }
    step(1, "apply NodeSet " + SET + " with 3 replicas");
    e2e.apply(Manifests.nodeSet(SET, 3, "slurmd:v1", ""));
    view.await(
        "3 ready",
        STEP,
        () -> view.statusInt("readyReplicas") == 3 && view.servingAll(pods(0, 1, 2)));
    rev1 = view.statusText("updateRevision");

    step(2, "a job on e2e-1, then scale up to 4");
    jobs.submit(SET + "-1", STEP);
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
        () -> temporal.nodeSetShows(SET, admin, NodePhase.READY, rev2));
    view.assertUntouchedFor(
        HOLD,
        List.of(pod(1), pod(2), pod(3)),
        rev1,
        monitor::podDeletions,
        "while " + admin + " was drained by an administrator (maxUnavailable 1)");
    note("the rollout waited " + HOLD.toSeconds() + "s with " + admin + " drained by the admin");

    step(5, "the administrator resumes " + admin + "; the rollout goes on");
    monitor.adminLifted(admin);
    e2e.scontrol(admin, "State=RESUME");
    String busy = pod(1);
    long job = jobs.on(busy);
    view.await(
        busy + " draining for the update with its job running",
        STEP,
        () ->
            view.drainedWith(busy, "tandem:update:")
                && view.jobRunning(job)
                && view.pod(busy).map(p -> rev1.equals(ClusterView.revision(p))).orElse(false));
    killer.killNow(
        busy + " draining for the update with its job running; the job ends while no worker runs",
        () -> jobs.cancel(job));
    view.await(
        "the rollout complete: 4 ready at the new revision",
        STEP,
        () ->
            view.statusInt("updatedReplicas") == 4
                && readyIs(4)
                && rev2.equals(view.statusText("currentRevision"))
                && view.servingAll(pods(0, 1, 2, 3)));
    monitor.rollingUpdateDone();
  }

  /** Step 9, first half: the jobs left on the remaining nodes end (the scenario cancels them). */
  void cancelRemainingJobs() throws Exception {
    step(9, "cancel the remaining jobs");
    jobs.cancelRemaining();
  }

  /** Cancels every job of the scenario (cleaning up after a failure). */
  void cancelAllQuietly() {
    jobs.cancelAllQuietly();
  }

  // ---- helpers ----

  static String pod(int ordinal) {
    return SET + "-" + ordinal;
  }

  static String[] pods(int... ordinals) {
    return java.util.Arrays.stream(ordinals).mapToObj(CrashScenario::pod).toArray(String[]::new);
  }

  boolean readyIs(int n) {
    return view.statusInt("readyReplicas") == n;
  }

  /** {@code tandem ...} in process, noted in the log. */
  void tandem(String... args) throws InterruptedException {
    note("tandem " + String.join(" ", args) + ": " + cli.run(args));
  }

  void step(int n, String what) {
    note("step " + n + ": " + what);
  }

  void note(String what) {
    String line =
        String.format(
            "%6.1fs [activity %d] %s",
            (System.nanoTime() - started) / 1e9, killer.cumulative(), what);
    log.add(line);
    System.out.println("crash suite: " + line);
  }
}
