package dev.tandem.e2e;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.LongSummaryStatistics;

/** The crash suite's printed results: per run, and a summary over all runs. */
final class CrashReport {
  static final List<String> INVARIANTS =
      List.of(
          "no pod deleted while a job ran on it; every job ended only by the scenario's scancel,"
              + " never requeued",
          "no administrator drain lifted, replaced or lost: from the administrator's DRAIN to"
              + " their RESUME every poll shows the node listed, DRAIN, with their reason, also"
              + " while Tandem replaces its pod (Slurm keeps the node record across slurmd"
              + " restarts)",
          "maxUnavailable (1) never exceeded during the rolling update (an administrator's drain"
              + " counts; Slurm's ~1 s NOT_RESPONDING after an undrain does not)",
          "the rollout waited while the administrator's drain held the budget",
          "every lifecycle finished: NodeSet Ready=True, readyReplicas == replicas =="
              + " updatedReplicas at the final revision; nodes ready with no hold, operation or"
              + " problem; removed nodes' workflows completed; no extra pods",
          "no Slurm node left with a tandem: reason that no hold of its workflow explains");

  private CrashReport() {}

  static String of(CrashRun.Result r) {
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            "%n=== crash run %s (first kill at activity %d, then every %d; moments %s): %s, %d"
                + " kills%n",
            r.plan().name(),
            r.plan().firstAt(),
            r.plan().every(),
            r.plan().moments(),
            fmt(r.took()),
            r.kills().size()));
    for (String s : r.steps()) {
      b.append("  ").append(s).append('\n');
    }
    for (KillPoint k : r.kills()) {
      b.append("  ").append(k.describe()).append('\n');
    }
    b.append(
        String.format(
            "  monitor: %d polls (%d failed), at most %d node(s) out of service during the"
                + " rollout%n",
            r.monitorPolls(), r.monitorFailedPolls(), r.maxUnavailableSeen()));
    if (r.violations().isEmpty()) {
      b.append("  invariants: all held\n");
    } else {
      for (String v : r.violations()) {
        b.append("  VIOLATION: ").append(v).append('\n');
      }
    }
    return b.toString();
  }

  static String summary(String mode, Instant start, List<CrashRun.Result> results) {
    int kills = results.stream().mapToInt(r -> r.kills().size()).sum();
    int violations = results.stream().mapToInt(r -> r.violations().size()).sum();
    LongSummaryStatistics ready =
        results.stream()
            .flatMap(r -> r.kills().stream())
            .mapToLong(KillPoint::readyMs)
            .summaryStatistics();
    LongSummaryStatistics progress =
        results.stream()
            .flatMap(r -> r.kills().stream())
            .filter(k -> k.progressMs() >= 0)
            .mapToLong(KillPoint::progressMs)
            .summaryStatistics();
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            "%n=== crash suite (%s), started %s: %d run(s), %d kills, %d violation(s), %s%n",
            mode,
            start,
            results.size(),
            kills,
            violations,
            fmt(Duration.between(start, Instant.now()))));
    if (kills > 0) {
      b.append(
          String.format(
              "  after a kill: new worker ready in %.1f-%.1f s (mean %.1f); first activity after"
                  + " %.1f-%.1f s (mean %.1f)%n",
              ready.getMin() / 1000.0,
              ready.getMax() / 1000.0,
              ready.getAverage() / 1000.0,
              progress.getMin() / 1000.0,
              progress.getMax() / 1000.0,
              progress.getAverage() / 1000.0));
    }
    b.append("  invariants checked:\n");
    for (String i : INVARIANTS) {
      b.append("   - ").append(i).append('\n');
    }
    for (CrashRun.Result r : results) {
      b.append(
          String.format(
              "  %s: %s, %d kills, %s%n",
              r.plan().name(),
              fmt(r.took()),
              r.kills().size(),
              r.violations().isEmpty()
                  ? "all invariants held"
                  : r.violations().size() + " violation(s)"));
      for (KillPoint k : r.kills()) {
        b.append("    ").append(k.describe()).append('\n');
      }
      for (String v : r.violations()) {
        b.append("    VIOLATION: ").append(v).append('\n');
      }
    }
    return b.toString();
  }

  static String fmt(Duration d) {
    return String.format("%dm%02ds", d.toMinutes(), d.toSecondsPart());
  }
}
