package dev.tandem.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** One line about the machine a benchmark ran on: CPU model, cores, memory, JDK. */
public final class Machine {
  private Machine() {}

  public static String describe() {
    String cpu = "unknown CPU";
    long memKb = -1;
    try {
      for (String l : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (l.startsWith("model name")) {
          cpu = l.substring(l.indexOf(':') + 1).trim();
          break;
        }
      }
      for (String l : Files.readAllLines(Path.of("/proc/meminfo"))) {
        if (l.startsWith("MemTotal:")) {
          memKb = Long.parseLong(l.replaceAll("[^0-9]", ""));
          break;
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux: the rest still says something
    }
    return String.format(
        java.util.Locale.ROOT,
        "%s, %d cores, %s RAM, JDK %s",
        cpu,
        Runtime.getRuntime().availableProcessors(),
        memKb < 0 ? "?" : String.format(java.util.Locale.ROOT, "%.0f GiB", memKb / 1048576.0),
        System.getProperty("java.version"));
  }
}
