package dev.tandem.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Where the machine's CPU went during one part of a benchmark: the CPU seconds of the bench's own
 * JVM (which hosts the local Kubernetes API, the Temporal test server and the kubelet), the worker
 * JVM, and Slurm's daemons (slurmctld, slurmrestd, every slurmd summed), read from {@code /proc}
 * before and after the part. The figure per item (pod or raw job) says what one costs the whole
 * stack, which the rates alone do not: on two shared cores a part is as fast as its CPU allows.
 * Without {@code /proc} (not Linux) it reports nothing rather than fail the bench.
 */
final class CpuShares {
  /** CPU seconds per process group, and the machine's busy seconds, at one moment. */
  record Sample(long nanos, Map<String, Double> seconds, double machineBusy) {}

  private static final java.util.List<String> DAEMONS =
      java.util.List.of("slurmctld", "slurmrestd", "slurmd");

  private final long workerPid;

  /**
   * @param workerPid the worker JVM's pid, or 0 if there is none
   */
  CpuShares(long workerPid) {
    this.workerPid = workerPid;
  }

  Sample take() {
    Map<String, Double> s = new LinkedHashMap<>();
    s.put("bench JVM", cpu(ProcessHandle.current().pid()));
    s.put("worker", workerPid > 0 ? cpu(workerPid) : 0.0);
    for (String daemon : DAEMONS) {
      s.put(daemon, 0.0);
    }
    try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
      procs
          .filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit))
          .forEach(
              p -> {
                String comm = comm(p);
                if (comm != null && DAEMONS.contains(comm)) {
                  s.merge(comm, cpu(Long.parseLong(p.getFileName().toString())), Double::sum);
                }
              });
    } catch (IOException | RuntimeException e) {
      return new Sample(System.nanoTime(), Map.of(), 0);
    }
    return new Sample(System.nanoTime(), s, machineBusy());
  }

  /** One line: CPU seconds by group between {@code a} and {@code b}, and per item. */
  static String describe(String part, Sample a, Sample b, int items) {
    if (a.seconds().isEmpty() || b.seconds().isEmpty()) {
      return part + " CPU: not measured (no /proc)";
    }
    double wall = (b.nanos() - a.nanos()) / 1e9;
    double total = 0;
    StringBuilder groups = new StringBuilder();
    for (Map.Entry<String, Double> e : b.seconds().entrySet()) {
      double d = Math.max(0, e.getValue() - a.seconds().getOrDefault(e.getKey(), 0.0));
      total += d;
      groups.append(String.format(Locale.ROOT, ", %s %.1f", e.getKey(), d));
    }
    int cores = Runtime.getRuntime().availableProcessors();
    return String.format(
        Locale.ROOT,
        "%s CPU: %.1f s in %.1f s on %d cores (machine %.0f%% busy)%s; %.0f ms per item",
        part,
        total,
        wall,
        cores,
        100 * (b.machineBusy() - a.machineBusy()) / Math.max(1e-9, wall * cores),
        groups,
        items == 0 ? 0 : 1000 * total / items);
  }

  private static double cpu(long pid) {
    try {
      return ProcStats.cpuSeconds(pid);
    } catch (RuntimeException e) {
      return 0; // the process ended meanwhile
    }
  }

  private static String comm(Path proc) {
    try {
      return Files.readString(proc.resolve("comm")).trim();
    } catch (IOException e) {
      return null;
    }
  }

  /** Busy seconds of all cores since boot: /proc/stat's first line without idle and iowait. */
  private static double machineBusy() {
    try {
      String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
      long busy = 0;
      for (int i = 1; i < f.length && i <= 8; i++) {
        if (i != 4 && i != 5) {
          busy += Long.parseLong(f[i]);
        }
      }
      return busy / ProcStats.TICKS_PER_SECOND;
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }
}
