package dev.tandem.e2e;

import static dev.tandem.e2e.CrashScenario.ADMIN_REASON;
import static dev.tandem.e2e.CrashScenario.SET;
import static dev.tandem.e2e.CrashScenario.STEP;
import static dev.tandem.e2e.CrashScenario.pod;
import static dev.tandem.e2e.CrashScenario.pods;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;

/**
 * Steps 6 to 8 of {@link CrashScenario} (see there): {@code tandem drain/undrain} (once plain, once
 * with an administrator's drain over Tandem's), a cordon and uncordon, and a scale-down around
 * running jobs.
 */
final class MaintenanceSteps {
  private final CrashScenario sc;

  MaintenanceSteps(CrashScenario sc) {
    this.sc = sc;
  }

  void manualDrainAndUndrain() throws Exception {
    String node = pod(2);
    sc.step(6, "tandem drain " + node + ", then tandem undrain");
    sc.tandem("drain", node, "--reason", "crash-suite maintenance");
    sc.view.await(
        node + " drained by tandem drain",
        STEP,
        () -> sc.view.drainedWith(node, "tandem:manual: crash-suite maintenance"));
    sc.tandem("undrain", node);
    sc.view.await(node + " in service again", STEP, () -> sc.view.serving(node));

    sc.step(6, "tandem drain " + node + ", an administrator drains it too, then tandem undrain");
    sc.tandem("drain", node, "--reason", "crash-suite second maintenance");
    sc.view.await(
        node + " drained by tandem drain",
        STEP,
        () -> sc.view.drainedWith(node, "tandem:manual: crash-suite second maintenance"));
    sc.e2e.scontrol(node, "State=DRAIN Reason=" + ADMIN_REASON);
    sc.monitor.adminDrained(node, ADMIN_REASON);
    sc.tandem("undrain", node);
    sc.view.await(
        node + " back to ready in Tandem, without holds, the administrator's drain kept",
        STEP,
        () -> sc.temporal.readyWithoutHolds(node) && sc.view.drainedWith(node, ADMIN_REASON));
    sc.monitor.adminLifted(node);
    sc.e2e.scontrol(node, "State=RESUME");
    sc.view.await(node + " in service again", STEP, () -> sc.view.serving(node));
  }

  void cordonAndUncordon() throws Exception {
    Pod p = sc.view.pod(pod(1)).orElseThrow();
    String k8sNode = p.getSpec().getNodeName();
    List<String> on =
        sc.view.pods().stream()
            .filter(x -> k8sNode.equals(x.getSpec().getNodeName()))
            .map(x -> x.getMetadata().getName())
            .sorted()
            .toList();
    sc.step(7, "cordon " + k8sNode + " (hosting " + on + "), then uncordon");
    sc.e2e.annotateCordonReason(k8sNode, "crash-suite kernel update");
    sc.e2e.cordon(k8sNode);
    sc.view.await(
        on + " drained for the cordon",
        STEP,
        () -> on.stream().allMatch(n -> sc.view.drainedWith(n, "tandem:k8s-cordon:")));
    sc.e2e.uncordon(k8sNode);
    sc.view.await(on + " in service again", STEP, () -> on.stream().allMatch(sc.view::serving));
  }

  void scaleDownAroundJobs() throws Exception {
    sc.step(8, "jobs on all 4 nodes, then scale down to 2");
    for (int i = 0; i < 4; i++) {
      sc.jobs.submit(pod(i), STEP);
    }
    sc.view.await("the NodeSet sees all 4 busy", STEP, () -> sc.temporal.busyNodes(SET) == 4);
    sc.e2e.patchSpec(SET, "{\"replicas\":2}");
    List<String> victims = List.of(pod(3), pod(2));
    sc.view.await(
        victims + " draining for the scale-down with their jobs running",
        STEP,
        () ->
            victims.stream()
                .allMatch(
                    v ->
                        sc.view.drainedWith(v, "tandem:scale-down:")
                            && sc.view.jobRunning(sc.jobs.on(v))
                            && sc.view.pod(v).isPresent()));
    sc.killer.killNow(
        victims + " draining for the scale-down with jobs; the jobs end while no worker runs",
        () -> {
          for (String v : victims) {
            sc.jobs.cancel(sc.jobs.on(v));
          }
        });
    sc.view.await(
        "the victims' pods gone and their Slurm nodes removed",
        STEP,
        () -> victims.stream().allMatch(v -> sc.view.pod(v).isEmpty() && !sc.view.listed(v)));
    sc.view.await(
        "2 replicas, 2 ready",
        STEP,
        () ->
            sc.view.statusInt("replicas") == 2
                && sc.readyIs(2)
                && sc.view.inServiceAll(pods(0, 1)));
  }
}
