package dev.tandem.workers;

import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Typed reads of environment variables with defaults and errors that say what is wrong. Every
 * variable Tandem reads goes through here, so docs/configuration.md can list them all.
 */
public final class Env {
  private static final Pattern DURATION = Pattern.compile("^(\\d+)(ms|s|m|h)$");

  private final Map<String, String> env;

  public Env(Map<String, String> env) {
    this.env = Map.copyOf(env);
  }

  public Map<String, String> raw() {
    return env;
  }

  /** The value, or {@code def} when unset or blank. */
  public String string(String name, String def) {
    String v = env.get(name);
    return v == null || v.isBlank() ? def : v.trim();
  }

  public String required(String name, String what) {
    String v = string(name, null);
    if (v == null) {
      throw new ConfigException(name + " is required: " + what);
    }
    return v;
  }

  public int integer(String name, int def, int min, int max) {
    String v = string(name, null);
    if (v == null) {
      return def;
    }
    try {
      int i = Integer.parseInt(v);
      if (i < min || i > max) {
        throw new ConfigException(
            name + "=" + v + " is out of range: expected " + min + " to " + max);
      }
      return i;
    } catch (NumberFormatException e) {
      throw new ConfigException(name + "=\"" + v + "\" is not a whole number");
    }
  }

  public boolean bool(String name, boolean def) {
    String v = string(name, null);
    if (v == null) {
      return def;
    }
    return switch (v.toLowerCase(Locale.ROOT)) {
      case "true", "yes", "1", "on" -> true;
      case "false", "no", "0", "off" -> false;
      default -> throw new ConfigException(name + "=\"" + v + "\" is not true or false");
    };
  }

  /** A duration like {@code 500ms}, {@code 2s}, {@code 5m}, {@code 1h}, at least {@code min}. */
  public Duration duration(String name, Duration def, Duration min) {
    String v = string(name, null);
    if (v == null) {
      return def;
    }
    Duration d;
    try {
      d = parseDuration(v);
    } catch (NumberFormatException | ArithmeticException e) {
      throw new ConfigException(name + "=\"" + v + "\" is too long a duration");
    }
    if (d == null) {
      throw new ConfigException(name + "=\"" + v + "\" is not a duration like 500ms, 2s, 5m or 1h");
    }
    if (d.compareTo(min) < 0) {
      throw new ConfigException(
          name + "=" + v + " is too short: at least " + min.toMillis() + "ms");
    }
    return d;
  }

  /** A comma-separated list (blanks dropped). */
  public Set<String> list(String name, Set<String> def) {
    String v = string(name, null);
    if (v == null) {
      return def;
    }
    Set<String> out = new LinkedHashSet<>();
    Arrays.stream(v.split(",")).map(String::trim).filter(s -> !s.isEmpty()).forEach(out::add);
    return out;
  }

  static Duration parseDuration(String v) {
    Matcher m = DURATION.matcher(v.trim());
    if (!m.matches()) {
      return null;
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "ms" -> Duration.ofMillis(n);
      case "s" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      default -> Duration.ofHours(n);
    };
  }
}
