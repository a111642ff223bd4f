package dev.tandem.k8s;

import dev.tandem.k8s.api.DrainSpec;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as a NodeSet spells them: one or more number+unit pairs, {@code 90s}, {@code 30m},
 * {@code 2h}, {@code 1d}, {@code 1h30m}. The same grammar as the CRD's pattern ({@link
 * DrainSpec#DURATION_PATTERN}), so what the API server accepts, Tandem can read.
 */
public final class Durations {
  private Durations() {}

  private static final Pattern WHOLE = Pattern.compile(DrainSpec.DURATION_PATTERN);
  private static final Pattern PART = Pattern.compile("([0-9]{1,9})(s|m|h|d)");

  /** Seconds, or empty if {@code text} is not a duration. */
  public static OptionalLong parseSeconds(String text) {
    if (text == null || !WHOLE.matcher(text.trim()).matches()) {
      return OptionalLong.empty();
    }
    long total = 0;
    Matcher m = PART.matcher(text.trim());
    while (m.find()) {
      // At most 4 parts of at most 999,999,999 days each: far below Long.MAX_VALUE.
      total += Long.parseLong(m.group(1)) * unitSeconds(m.group(2).charAt(0));
    }
    return OptionalLong.of(total);
  }

  /** The shortest spelling of {@code seconds}, e.g. {@code 5400} gives {@code 1h30m}. */
  public static String format(long seconds) {
    if (seconds <= 0) {
      return "0s";
    }
    StringBuilder b = new StringBuilder();
    long rest = seconds;
    for (char unit : new char[] {'d', 'h', 'm', 's'}) {
      long u = unitSeconds(unit);
      if (rest >= u) {
        b.append(rest / u).append(unit);
        rest %= u;
      }
    }
    return b.toString();
  }

  private static long unitSeconds(char unit) {
    switch (unit) {
      case 's':
        return 1;
      case 'm':
        return 60;
      case 'h':
        return 3600;
      case 'd':
        return 86400;
      default:
        throw new IllegalArgumentException("unit " + unit);
    }
  }
}
