package dev.tandem.workflows.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The drain-reason grammar: {@code tandem:<cause>: <detail>}.
 *
 * <p>Tandem only ever removes a drain whose reason parses here. A reason without the {@code
 * tandem:} prefix belongs to an administrator and is never removed by automation; it is mirrored to
 * the pod instead.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record DrainReason(DrainCause cause, String detail) {

  public static final String PREFIX = "tandem:";

  /** Slurm keeps reasons as free text; keep ours short enough for any {@code sinfo -R} column. */
  public static final int MAX_LENGTH = 200;

  private static final Pattern GRAMMAR = Pattern.compile("^tandem:([a-z0-9-]+):\\s?(.*)$");

  public DrainReason {
    if (cause == null) {
      throw new IllegalArgumentException("cause is required");
    }
    detail = sanitize(detail);
  }

  /** {@code tandem:<cause>: <detail>}, cut to {@link #MAX_LENGTH}. */
  public String format() {
    return cut(PREFIX + cause.label() + ": " + detail, MAX_LENGTH);
  }

  /**
   * A reason as people send it (a cordon annotation, {@code tandem drain --reason}, a signal): one
   * line without control characters, at most {@link #MAX_LENGTH} characters. Slurm itself stores
   * newlines and any length, which breaks {@code scontrol show node} and {@code sinfo -R}.
   */
  public static String clean(String reason) {
    return reason == null ? null : cut(sanitize(reason).replaceAll("\\s{2,}", " "), MAX_LENGTH);
  }

  /** The first {@code max} characters, never splitting a surrogate pair (an emoji). */
  static String cut(String s, int max) {
    if (s.length() <= max) {
      return s;
    }
    int end = Character.isHighSurrogate(s.charAt(max - 1)) ? max - 1 : max;
    return s.substring(0, end);
  }

  public static String format(DrainCause cause, String detail) {
    return new DrainReason(cause, detail).format();
  }

  /** Parses a Slurm reason; empty if it is not a Tandem reason (an administrator's drain). */
  public static Optional<DrainReason> parse(String reason) {
    if (reason == null) {
      return Optional.empty();
    }
    Matcher m = GRAMMAR.matcher(reason.trim());
    if (!m.matches()) {
      return Optional.empty();
    }
    return DrainCause.fromLabel(m.group(1)).map(c -> new DrainReason(c, m.group(2)));
  }

  /** Whether Tandem owns a drain with this reason (and may therefore remove it). */
  public static boolean ownedByTandem(String reason) {
    return reason != null && reason.trim().startsWith(PREFIX);
  }

  /** One line, no control characters: a reason ends up in scontrol arguments and tables. */
  static String sanitize(String detail) {
    if (detail == null) {
      return "";
    }
    StringBuilder b = new StringBuilder(detail.length());
    for (char c : detail.toCharArray()) {
      b.append(Character.isISOControl(c) ? ' ' : c);
    }
    return b.toString().trim();
  }
}
