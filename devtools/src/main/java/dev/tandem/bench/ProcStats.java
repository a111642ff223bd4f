package dev.tandem.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * What a benchmark reads about another process: CPU time and RSS from {@code /proc/<pid>} (Linux),
 * and series from its Prometheus {@code /metrics}.
 */
final class ProcStats {
  /** USER_HZ: the unit of utime/stime in /proc/<pid>/stat; 100 on every Linux ABI we run on. */
  static final double TICKS_PER_SECOND = 100.0;

  private ProcStats() {}

  /** utime + stime of the process, in seconds. */
  static double cpuSeconds(long pid) {
    String[] f = statFields(pid);
    // utime (14) is f[11] and stime (15) f[12].
    return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS_PER_SECOND;
  }

  /**
   * The process's own CPU seconds (utime + stime) and those of its children that ended and were
   * waited for (cutime + cstime), from one read of its stat file.
   */
  static double[] cpuAndReapedSeconds(long pid) {
    String[] f = statFields(pid);
    // cutime (16) is f[13] and cstime (17) f[14].
    return new double[] {
      (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS_PER_SECOND,
      (Long.parseLong(f[13]) + Long.parseLong(f[14])) / TICKS_PER_SECOND
    };
  }

  /** The fields of /proc/<pid>/stat after comm: f[0] is field 3 (state). */
  private static String[] statFields(long pid) {
    String stat = read(Path.of("/proc", Long.toString(pid), "stat"));
    // Field 2 (comm) may hold spaces: count fields after its closing parenthesis.
    return stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
  }

  /** VmRSS of the process, in bytes. */
  static long rssBytes(long pid) {
    for (String line : read(Path.of("/proc", Long.toString(pid), "status")).split("\n")) {
      if (line.startsWith("VmRSS:")) {
        String[] p = line.substring(6).trim().split("\\s+");
        return Long.parseLong(p[0]) * 1024; // kB
      }
    }
    throw new IllegalStateException("no VmRSS for pid " + pid);
  }

  /** The sum of every series named exactly {@code name} (any labels) in a Prometheus scrape. */
  static double sum(String scrape, String name) {
    double total = 0;
    for (String line : scrape.split("\n")) {
      if (line.startsWith("#") || !line.startsWith(name)) {
        continue;
      }
      String rest = line.substring(name.length());
      if (!rest.startsWith("{") && !rest.startsWith(" ")) {
        continue; // a longer name with this prefix
      }
      try {
        total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1).trim());
      } catch (NumberFormatException e) {
        // NaN-like values are skipped
      }
    }
    return total;
  }

  /**
   * The series of {@code name} summed by the value of {@code label} (series without it under "-"),
   * from a Prometheus text scrape.
   */
  static java.util.Map<String, Double> byLabel(String scrape, String name, String label) {
    java.util.Map<String, Double> out = new java.util.TreeMap<>();
    String key = label + "=\"";
    for (String line : scrape.split("\n")) {
      if (line.startsWith("#") || !line.startsWith(name + "{")) {
        continue;
      }
      int at = line.indexOf(key);
      String value = "-";
      if (at >= 0) {
        int end = line.indexOf('"', at + key.length());
        value = end < 0 ? "-" : line.substring(at + key.length(), end);
      }
      try {
        double v = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1).trim());
        out.merge(value, v, Double::sum);
      } catch (NumberFormatException e) {
        // NaN-like values are skipped
      }
    }
    return out;
  }

  static String scrape(URI metrics) {
    try {
      HttpClient c = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      return c.send(
              HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(30)).build(),
              HttpResponse.BodyHandlers.ofString())
          .body();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
