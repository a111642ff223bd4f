package dev.tandem.slurm.fake;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Generic resources as counts per key: a node's {@code gpu:h100:8} counts under {@code gpu} and
 * {@code gpu:h100}; a request {@code gres/gpu:2} asks for 2 under {@code gpu}. Use is charged per
 * name ({@code gpu}) whatever the type, so a node never looks freer than it is (a request for a
 * typed GPU next to an untyped one may be refused where Slurm would fit it).
 */
final class Gres {
  private Gres() {}

  /** {@code gpu:2,nic:1} or {@code gpu:h100:8} (a {@code (S:0-1)} suffix is ignored). */
  static Map<String, Integer> parse(String spec) {
    Map<String, Integer> out = new LinkedHashMap<>();
    if (spec == null || spec.isBlank()) {
      return out;
    }
    for (String raw : spec.split(",")) {
      String p = raw.trim().replaceFirst("\\(.*\\)$", "");
      if (p.startsWith("gres/")) {
        p = p.substring("gres/".length());
      }
      if (p.isEmpty()) {
        continue;
      }
      String[] parts = p.split(":");
      int count = 1;
      int keyParts = parts.length;
      if (parts.length > 1 && parts[parts.length - 1].matches("[0-9]+")) {
        count = Integer.parseInt(parts[parts.length - 1]);
        keyParts = parts.length - 1;
      }
      out.merge(parts[0], count, Integer::sum);
      if (keyParts > 1) {
        out.merge(parts[0] + ":" + parts[1], count, Integer::sum);
      }
    }
    return out;
  }

  /** The name part of a key: {@code gpu} for {@code gpu:h100}. */
  static String name(String key) {
    int i = key.indexOf(':');
    return i < 0 ? key : key.substring(0, i);
  }
}
