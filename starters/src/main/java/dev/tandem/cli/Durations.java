package dev.tandem.cli;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code 90s}, {@code 10m}, {@code 1h} for command-line options, and back for messages. */
final class Durations {
  private Durations() {}

  private static final Pattern P = Pattern.compile("^(\\d+)(ms|s|m|h)$");

  static Duration parse(String v) {
    Matcher m = P.matcher(v == null ? "" : v.trim());
    if (!m.matches()) {
      throw new CliException("'" + v + "' is not a duration like 30s, 10m or 1h");
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "ms" -> Duration.ofMillis(n);
      case "s" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      default -> Duration.ofHours(n);
    };
  }

  /**
   * {@code 750ms}, {@code 0s}, {@code 5s}, {@code 119s}, {@code 2m}, {@code 3h}: seconds up to two
   * minutes, then the largest whole unit, rounded down.
   */
  static String format(Duration d) {
    if (d.toMillis() < 1000 && !d.isZero()) {
      return d.toMillis() + "ms";
    }
    if (d.toSeconds() < 120) {
      return d.toSeconds() + "s";
    }
    if (d.toMinutes() < 120) {
      return d.toMinutes() + "m";
    }
    return d.toHours() + "h";
  }
}
