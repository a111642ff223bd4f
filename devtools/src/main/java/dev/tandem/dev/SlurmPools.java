package dev.tandem.dev;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The pools of {@code TANDEM_SLURM_POOLS} ({@code prefix:count,...}): the FUTURE node names {@code
 * prefix-0..prefix-(count-1)} that NodeSets' pods bring up, as {@code slurm-local.sh} declares
 * them.
 */
record SlurmPools(Map<String, Integer> counts) {
  static SlurmPools parse(String spec) {
    Map<String, Integer> m = new LinkedHashMap<>();
    for (String entry : spec.split(",")) {
      int colon = entry.indexOf(':');
      if (colon > 0 && entry.substring(colon + 1).trim().matches("\\d{1,6}")) {
        m.put(
            entry.substring(0, colon).trim(), Integer.parseInt(entry.substring(colon + 1).trim()));
      }
    }
    return new SlurmPools(Map.copyOf(m));
  }

  /** Exactly {@code prefix-N} with N below the pool's count (no leading zeros), as the script. */
  boolean isPoolNode(String name) {
    int dash = name.lastIndexOf('-');
    if (dash <= 0 || !name.substring(dash + 1).matches("0|[1-9]\\d{0,5}")) {
      return false;
    }
    Integer count = counts.get(name.substring(0, dash));
    return count != null && Integer.parseInt(name.substring(dash + 1)) < count;
  }
}
