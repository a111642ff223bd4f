package dev.tandem.e2e;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One run of {@link CrashScenario} under one {@link CrashPlan}, on a fresh stack: starts the
 * watchers of the run (invariant monitor, phase board, killer), runs the scenario, judges the end,
 * and cleans up whatever happened. The result says what was checked and what broke.
 */
final class CrashRun {
  /** How long Tandem may take to settle after the last step (an activity may wait 30 s). */
  static final Duration SETTLE = Duration.ofMinutes(2);

  /** What a run did and found. */
  record Result(
      CrashPlan plan,
      Duration took,
      List<KillPoint> kills,
      List<String> violations,
      List<String> steps,
      int maxUnavailableSeen,
      long monitorPolls,
      long monitorFailedPolls) {}

  private CrashRun() {}

  static Result run(CrashPlan plan) throws Exception {
    long t0 = System.nanoTime();
    List<String> violations = new ArrayList<>();
    try (E2EStack e2e = E2EStack.start(Map.of())) {
      TemporalProbe temporal = new TemporalProbe(e2e.temporal, Duration.ofSeconds(5));
      InvariantMonitor monitor =
          new InvariantMonitor(
              e2e.slurm, e2e.k8s, "default", CrashScenario.SET, Duration.ofMillis(250));
      PhaseBoard phases = new PhaseBoard(temporal, CrashScenario.SET);
      WorkerKiller killer = new WorkerKiller(e2e, monitor, phases, plan, CrashScenario.SET);
      CrashScenario scenario = new CrashScenario(e2e, temporal, monitor, killer);
      monitor.start();
      phases.start();
      killer.start();
      try {
        scenario.run();
        scenario.cancelRemainingJobs();
      } catch (Exception | AssertionError e) {
        violations.add("the scenario failed: " + e);
        e.printStackTrace(System.out);
      } finally {
        killer.close();
      }
      if (violations.isEmpty()) {
        violations.addAll(
            new EndState(e2e, temporal, CrashScenario.SET)
                .check(
                    List.of("e2e-0", "e2e-1"),
                    List.of("e2e-2", "e2e-3"),
                    scenario.finalRevision(),
                    SETTLE));
      }
      try {
        monitor.checkJobs();
      } catch (RuntimeException e) {
        violations.add("cannot read the jobs: " + e);
      }
      monitor.close();
      phases.close();
      violations.addAll(monitor.violations());
      violations.addAll(whoLifted(e2e, monitor.violations()));
      violations.addAll(killer.errors());
      scenario.cancelAllQuietly();
      try {
        e2e.deleteNodeSet(CrashScenario.SET, Duration.ofMinutes(2));
      } catch (AssertionError | RuntimeException e) {
        violations.add("cannot delete the NodeSet at the end: " + e.getMessage());
      }
      return new Result(
          plan,
          Duration.ofNanos(System.nanoTime() - t0),
          killer.kills(),
          List.copyOf(violations),
          scenario.log(),
          monitor.maxUnavailableSeen(),
          monitor.polls(),
          monitor.failedPolls());
    }
  }

  /**
   * When an administrator's drain was seen lifted, the worker log's own account of it: Tandem's
   * undrain activity logs {@code undrain node <name>: lifted "<reason>"} whenever it lifts a drain,
   * so a line naming the administrator's reason says Tandem did it, and none says something else
   * did (Slurm dropping the record, another client).
   */
  static List<String> whoLifted(E2EStack e2e, List<String> violations) {
    if (violations.stream().noneMatch(v -> v.contains("administrator drain on"))) {
      return List.of();
    }
    java.nio.file.Path log = e2e.dir.resolve("worker.log");
    try (java.util.stream.Stream<String> lines = java.nio.file.Files.lines(log)) {
      List<String> lifts =
          lines.filter(l -> l.contains("undrain node ") && l.contains(": lifted")).toList();
      return List.of(
          "undrains in the worker log ("
              + log
              + "): "
              + (lifts.isEmpty() ? "none, so Tandem lifted no drain" : String.join(" | ", lifts)));
    } catch (java.io.IOException | java.io.UncheckedIOException e) {
      return List.of("cannot read the worker log " + log + ": " + e);
    }
  }
}
