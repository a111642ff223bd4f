package dev.tandem.cli;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code 90s}, {@code 10m}, {@code 1h} for command-line options, and back for messages. Public so
 * that an extension's commands ({@link CliExtension}) read durations as the operator commands do.
 */
public final class Durations {
  private Durations() {}

  private static final Pattern P = Pattern.compile("^(\\d+)(ms|s|m|h)$");

  /** Longer than anyone waits at a terminal; also keeps the arithmetic far from overflow. */
  static final Duration MAX = Duration.ofDays(7);

  public static Duration parse(String v) {
    Matcher m = P.matcher(v == null ? "" : v.trim());
    if (!m.matches()) {
      throw new CliException("'" + v + "' is not a duration like 30s, 10m or 1h");
    }
    Duration d;
    try {
      long n = Long.parseLong(m.group(1));
      d =
          switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            default -> Duration.ofHours(n);
          };
    } catch (NumberFormatException | ArithmeticException e) {
      d = null;
    }
    if (d == null || d.compareTo(MAX) > 0) {
      throw new CliException("'" + v + "' is longer than " + MAX.toDays() + " days");
    }
    return d;
  }

  /**
   * For {@code @Option(converter = ...)}: a bad duration is a wrong command line (exit 2), found
   * while parsing, before the command does anything.
   */
  static final class Converter implements ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      try {
        return parse(value);
      } catch (CliException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
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
