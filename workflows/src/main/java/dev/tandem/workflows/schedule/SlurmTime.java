package dev.tandem.workflows.schedule;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Slurm's time-limit format ({@code sbatch --time}): {@code M}, {@code M:S}, {@code H:M:S}, {@code
 * D-H}, {@code D-H:M}, {@code D-H:M:S}. Slurm rounds seconds up to whole minutes; so does this.
 * {@code UNLIMITED} is not accepted: a placeholder without a limit takes the partition's default.
 */
public final class SlurmTime {
  private SlurmTime() {}

  private static final Pattern DAYS =
      Pattern.compile("([0-9]{1,6})-([0-9]{1,6})(?::([0-9]{1,6}))?(?::([0-9]{1,6}))?");
  private static final Pattern CLOCK =
      Pattern.compile("([0-9]{1,9})(?::([0-9]{1,9}))?(?::([0-9]{1,9}))?");

  /** The limit in whole minutes (at least 1), or null if {@code s} is not a valid limit. */
  public static Long minutes(String s) {
    if (s == null || s.length() > 20) {
      return null;
    }
    long seconds;
    Matcher d = DAYS.matcher(s);
    Matcher c = CLOCK.matcher(s);
    if (d.matches()) {
      seconds =
          num(d.group(1)) * 86400 + num(d.group(2)) * 3600 + num(d.group(3)) * 60 + num(d.group(4));
    } else if (c.matches()) {
      if (c.group(3) != null) { // H:M:S
        seconds = num(c.group(1)) * 3600 + num(c.group(2)) * 60 + num(c.group(3));
      } else { // M or M:S
        seconds = num(c.group(1)) * 60 + num(c.group(2));
      }
    } else {
      return null;
    }
    long minutes = (seconds + 59) / 60;
    return minutes >= 1 ? minutes : null;
  }

  private static long num(String g) {
    return g == null ? 0 : Long.parseLong(g);
  }
}
