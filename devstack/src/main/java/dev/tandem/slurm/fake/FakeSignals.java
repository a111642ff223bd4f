package dev.tandem.slurm.fake;

import java.util.Locale;
import java.util.Map;

/** Signal names as {@code scancel --signal} takes them, and which ones end a batch shell. */
final class FakeSignals {
  private FakeSignals() {}

  private static final Map<String, Integer> NUMBERS =
      Map.ofEntries(
          Map.entry("HUP", 1),
          Map.entry("INT", 2),
          Map.entry("QUIT", 3),
          Map.entry("KILL", 9),
          Map.entry("USR1", 10),
          Map.entry("USR2", 12),
          Map.entry("TERM", 15),
          Map.entry("CONT", 18),
          Map.entry("STOP", 19));

  /** The number of {@code SIGTERM}, {@code TERM} or {@code 15}; -1 if unknown. */
  static int number(String s) {
    if (s.matches("[0-9]{1,2}")) {
      return Integer.parseInt(s);
    }
    String n = s.toUpperCase(Locale.ROOT);
    return NUMBERS.getOrDefault(n.startsWith("SIG") ? n.substring(3) : n, -1);
  }

  /** Whether the signal's default action ends the job's {@code sleep} (not USR*, CONT, STOP). */
  static boolean ends(int signal) {
    return signal == 1 || signal == 2 || signal == 3 || signal == 9 || signal == 15;
  }
}
