package dev.tandem.workflows.schedule;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Kubernetes resource quantities ({@code 500m}, {@code 2}, {@code 1Gi}, {@code 512Mi}, {@code 1G},
 * {@code 1e3}) and their Slurm equivalents. Slurm counts whole CPUs and memory in MB that are
 * mebibytes (2^20 bytes); both round up, so a job never holds less than the pod requested.
 */
public final class Quantities {
  private Quantities() {}

  private static final Pattern QUANTITY =
      Pattern.compile(
          "([+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]{1,3})?");

  private static final Map<String, BigDecimal> SUFFIX =
      Map.ofEntries(
          Map.entry("", BigDecimal.ONE),
          Map.entry("n", new BigDecimal("1e-9")),
          Map.entry("u", new BigDecimal("1e-6")),
          Map.entry("m", new BigDecimal("1e-3")),
          Map.entry("k", new BigDecimal("1e3")),
          Map.entry("M", new BigDecimal("1e6")),
          Map.entry("G", new BigDecimal("1e9")),
          Map.entry("T", new BigDecimal("1e12")),
          Map.entry("P", new BigDecimal("1e15")),
          Map.entry("E", new BigDecimal("1e18")),
          Map.entry("Ki", BigDecimal.valueOf(1L << 10)),
          Map.entry("Mi", BigDecimal.valueOf(1L << 20)),
          Map.entry("Gi", BigDecimal.valueOf(1L << 30)),
          Map.entry("Ti", BigDecimal.valueOf(1L << 40)),
          Map.entry("Pi", BigDecimal.valueOf(1L << 50)),
          Map.entry("Ei", BigDecimal.valueOf(1L << 60)));

  private static final BigDecimal MIB = BigDecimal.valueOf(1L << 20);

  /** The quantity's value, or null if {@code q} is not a Kubernetes quantity. */
  public static BigDecimal parse(String q) {
    if (q == null) {
      return null;
    }
    Matcher m = QUANTITY.matcher(q.trim());
    if (!m.matches()) {
      return null;
    }
    BigDecimal number = new BigDecimal(m.group(1));
    String suffix = m.group(2) == null ? "" : m.group(2);
    if (suffix.length() > 1 && (suffix.charAt(0) == 'e' || suffix.charAt(0) == 'E')) {
      return number.scaleByPowerOfTen(Integer.parseInt(suffix.substring(1)));
    }
    return number.multiply(SUFFIX.get(suffix));
  }

  /** Whole CPUs for a CPU quantity, rounded up ({@code 500m} is 1). */
  public static long cpus(String q) {
    return parse(q).setScale(0, RoundingMode.CEILING).longValueExact();
  }

  /** Slurm MB (MiB) for a memory quantity in bytes, rounded up ({@code 1G} is 954). */
  public static long memoryMb(String q) {
    return parse(q).divide(MIB, 0, RoundingMode.CEILING).longValueExact();
  }
}
