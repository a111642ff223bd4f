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
 * JVM (the kubelet or the simulated fleet, the sampler), the worker JVM, the Temporal server, the
 * Kubernetes control plane (etcd, kube-apiserver, kube-controller-manager and kube-scheduler
 * summed), Slurm's daemons (slurmctld, slurmrestd, every slurmd summed), the other processes, and
 * the processes that ended in between ({@link #ended}), read from {@code /proc} before and after
 * the part. The figure per item (pod or raw job) says what one costs the whole stack, which the
 * rates alone do not: on two shared cores a part is as fast as its CPU allows. Without {@code
 * /proc} (not Linux) it reports nothing rather than fail the bench.
 */
final class CpuShares {
  /** CPU seconds per process group, and the machine's busy seconds, at one moment. */
  record Sample(
      long nanos,
      Map<String, Double> seconds,
      Map<Long, Double> others,
      Map<Long, double[]> times,
      double[] machine) {
    double machineBusy() {
      return machine.length == 0 ? 0 : machine[0] + machine[1] + machine[2] + machine[3];
    }
  }

  private static final java.util.List<String> DAEMONS =
      java.util.List.of("temporal", "kubernetes", "slurmctld", "slurmrestd", "slurmd");

  /** The control plane's processes by {@code comm} (at most 15 characters), one group. */
  private static final java.util.Set<String> KUBERNETES =
      java.util.Set.of("etcd", "kube-apiserver", "kube-controller", "kube-scheduler");

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
    Map<Long, Double> others = new java.util.HashMap<>();
    Map<Long, double[]> times = new java.util.HashMap<>();
    long self = ProcessHandle.current().pid();
    try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
      procs
          .filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit))
          .forEach(
              p -> {
                long pid = Long.parseLong(p.getFileName().toString());
                double[] t = times(pid);
                if (t != null) {
                  times.put(pid, t);
                }
                if (pid == self || pid == workerPid) {
                  return;
                }
                String comm = comm(p);
                if (comm != null && KUBERNETES.contains(comm)) {
                  comm = "kubernetes";
                }
                double own = t == null ? 0 : t[0];
                if (comm != null && DAEMONS.contains(comm)) {
                  s.merge(comm, own, Double::sum);
                } else {
                  others.put(pid, own);
                }
              });
    } catch (IOException | RuntimeException e) {
      return new Sample(System.nanoTime(), Map.of(), Map.of(), Map.of(), new double[0]);
    }
    return new Sample(System.nanoTime(), s, others, times, machine());
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
    // Per process: one that ended in between is left out, one that started counts from zero.
    double others = 0;
    for (Map.Entry<Long, Double> e : b.others().entrySet()) {
      others += Math.max(0, e.getValue() - a.others().getOrDefault(e.getKey(), 0.0));
    }
    total += others;
    groups.append(String.format(Locale.ROOT, ", other processes %.1f", others));
    double ended = ended(a.times(), b.times());
    total += ended;
    groups.append(String.format(Locale.ROOT, ", processes that ended %.1f", ended));
    int cores = Runtime.getRuntime().availableProcessors();
    String machine = "";
    if (a.machine().length == 4 && b.machine().length == 4) {
      machine =
          String.format(
              Locale.ROOT,
              " (machine %.0f%% busy: user %.1f s, system %.1f, interrupts %.1f, steal %.1f)",
              100 * (b.machineBusy() - a.machineBusy()) / Math.max(1e-9, wall * cores),
              b.machine()[0] - a.machine()[0],
              b.machine()[1] - a.machine()[1],
              b.machine()[2] - a.machine()[2],
              b.machine()[3] - a.machine()[3]);
    }
    return String.format(
        Locale.ROOT,
        "%s CPU: %.1f s of processes in %.1f s on %d cores%s%s; %.0f ms per item",
        part,
        total,
        wall,
        cores,
        machine,
        groups,
        items == 0 ? 0 : 1000 * total / items);
  }

  /**
   * CPU seconds of the processes that ended between {@code a} and {@code b} (each Slurm job's
   * slurmstepd, batch shell and the like, which no live process shows): the growth of every live
   * process's reaped children's time (cutime + cstime; orphans are reaped by pid 1, which is
   * alive), less what the processes alive at {@code a} and gone at {@code b} had used by then,
   * since their whole lives went into their parents' figures when they were reaped. A process that
   * ended but is not yet reaped still shows in /proc and counts as live.
   */
  static double ended(Map<Long, double[]> a, Map<Long, double[]> b) {
    double d = 0;
    for (Map.Entry<Long, double[]> e : b.entrySet()) {
      double[] before = a.get(e.getKey());
      d += e.getValue()[1] - (before == null ? 0 : before[1]);
    }
    for (Map.Entry<Long, double[]> e : a.entrySet()) {
      if (!b.containsKey(e.getKey())) {
        d -= e.getValue()[0] + e.getValue()[1];
      }
    }
    return Math.max(0, d);
  }

  private static double[] times(long pid) {
    try {
      return ProcStats.cpuAndReapedSeconds(pid);
    } catch (RuntimeException e) {
      return null; // the process ended meanwhile
    }
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

  /**
   * Seconds of all cores since boot from /proc/stat's first line: user (with nice), system, soft
   * and hard interrupts, steal (time a VM's host ran something else).
   */
  private static double[] machine() {
    try {
      String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
      double t = ProcStats.TICKS_PER_SECOND;
      return new double[] {
        (Long.parseLong(f[1]) + Long.parseLong(f[2])) / t,
        Long.parseLong(f[3]) / t,
        (Long.parseLong(f[6]) + Long.parseLong(f[7])) / t,
        Long.parseLong(f[8]) / t
      };
    } catch (IOException | RuntimeException e) {
      return new double[0];
    }
  }
}
