package dev.tandem.slurm.v0038;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmNode;
import dev.tandem.slurm.SlurmUnavailableException;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Reads slurmrestd 22.05 (openapi v0.0.38) JSON into Tandem's version-neutral records. Job answers
 * are read as a token stream by {@link V0038Jobs} (they are large), with the helpers' meanings.
 */
final class V0038Json {
  static final ObjectMapper JSON = new ObjectMapper();

  /** Slurm's NO_VAL and INFINITE for 32-bit fields: "not set" and "no limit". */
  static final long NO_VAL32 = 0xFFFFFFFEL;

  /** NO_VAL for 16-bit fields ({@code minimum_cpus_per_node}), which 22.05 writes as numbers. */
  static final long NO_VAL16 = 0xFFFEL;

  /** States in which a job's start/end times are Slurm's estimates, not facts. */
  static final Set<String> NOT_ENDED =
      Set.of("PENDING", "RUNNING", "SUSPENDED", "CONFIGURING", "REQUEUED", "RESIZING");

  private V0038Json() {}

  static JsonNode parse(String body, String context) {
    try {
      JsonNode n = JSON.readTree(body == null ? "" : body);
      if (n == null || !n.isObject()) {
        throw new SlurmUnavailableException(context + ": slurmrestd answered no JSON object");
      }
      return n;
    } catch (IOException e) {
      throw new SlurmUnavailableException(
          context + ": slurmrestd answered malformed JSON: " + snippet(body), e);
    }
  }

  /**
   * A job's size from its {@code node_count}, {@code minimum_cpus_per_node}, {@code
   * memory_per_node} and {@code memory_per_cpu} (as {@link #number} reads them, 0 when absent or
   * null) and its {@code tres_per_node} and {@code features} (as {@link #text}). A count that is
   * not positive, NO_VAL or beyond an int is unknown (0).
   */
  static SlurmJob.Request request(
      long nodeCount,
      long minCpus,
      long memPerNode,
      long memPerCpu,
      String tresPerNode,
      String features) {
    int cpus = minCpus > 0 && minCpus < NO_VAL16 ? (int) minCpus : 0;
    return new SlurmJob.Request(
        nodeCount > 0 && nodeCount <= Integer.MAX_VALUE ? (int) nodeCount : 0,
        cpus,
        SlurmJob.Request.memoryPerNode(memPerNode, memPerCpu, cpus),
        SlurmJob.Request.gresFromTres(tresPerNode),
        features);
  }

  static SlurmNode node(JsonNode n) {
    String reason = text(n, "reason");
    return new SlurmNode(
        text(n, "name"),
        lower(text(n, "state")),
        upperSet(n.path("state_flags")),
        reason,
        // 22.05 names a user even when there is no reason.
        reason == null ? null : text(n, "reason_set_by_user"),
        reason == null ? null : instant(n, "reason_changed_at"),
        (int) number(n, "cpus", 0),
        (int) number(n, "alloc_cpus", 0),
        number(n, "real_memory", 0),
        text(n, "gres"),
        text(n, "gres_used"),
        strings(n.path("partitions")),
        commaList(
            text(n, "active_features") != null ? text(n, "active_features") : text(n, "features")),
        text(n, "address"),
        text(n, "hostname"),
        instant(n, "slurmd_start_time"),
        instant(n, "boot_time"),
        text(n, "slurmd_version"));
  }

  /**
   * Every node of a listing. A listing without a {@code nodes} list, or with an entry that cannot
   * be read, fails whole: a missing node would look like one that is gone (fail closed).
   */
  static List<SlurmNode> nodes(JsonNode root, String context) {
    List<SlurmNode> out = new ArrayList<>();
    for (JsonNode n : list(root, "nodes", context)) {
      if (text(n, "name") == null) {
        throw new SlurmUnavailableException(
            context + ": slurmrestd answered a node without a name: " + snippet(n.toString()));
      }
      out.add(node(n));
    }
    return out;
  }

  /**
   * 22.05 reports the raw wait status ({@code exit 3} is 768, SIGTERM is 15); {@code SlurmJob}
   * speaks the shell convention, as the v0.0.41+ adapters do: the return code, or 128+signal.
   */
  static int exitCode(int waitStatus) {
    int signal = waitStatus & 0x7f;
    return signal != 0 ? 128 + signal : (waitStatus >> 8) & 0xff;
  }

  private static JsonNode list(JsonNode root, String key, String context) {
    JsonNode a = root.get(key);
    if (a == null || !a.isArray()) {
      throw new SlurmUnavailableException(
          context
              + ": slurmrestd answered without a \""
              + key
              + "\" list: "
              + snippet(root.toString()));
    }
    return a;
  }

  /** Text, with "" and JSON null as null. */
  static String text(JsonNode n, String key) {
    JsonNode v = n.get(key);
    if (v == null || v.isNull()) {
      return null;
    }
    String s = v.asText();
    return s.isEmpty() ? null : s;
  }

  static long number(JsonNode n, String key, long dflt) {
    JsonNode v = n.get(key);
    return v != null && v.canConvertToLong() ? v.asLong() : dflt;
  }

  /** Epoch seconds, with 0 (Slurm's "never") as null. */
  static Instant instant(JsonNode n, String key) {
    long s = number(n, key, 0);
    return s <= 0 || s >= NO_VAL32 ? null : Instant.ofEpochSecond(s);
  }

  private static String lower(String s) {
    return s == null ? "unknown" : s.toLowerCase(Locale.ROOT);
  }

  private static Set<String> upperSet(JsonNode arr) {
    Set<String> out = new LinkedHashSet<>();
    for (JsonNode f : arr) {
      if (!f.asText().isEmpty()) {
        out.add(f.asText().toUpperCase(Locale.ROOT));
      }
    }
    return out;
  }

  private static List<String> strings(JsonNode arr) {
    List<String> out = new ArrayList<>();
    for (JsonNode s : arr) {
      out.add(s.asText());
    }
    return out;
  }

  private static List<String> commaList(String s) {
    List<String> out = new ArrayList<>();
    if (s != null) {
      for (String p : s.split(",")) {
        if (!p.isBlank()) {
          out.add(p.trim());
        }
      }
    }
    return out;
  }

  static String snippet(String body) {
    if (body == null) {
      return "";
    }
    String b = body.replaceAll("\\s+", " ").trim();
    return b.length() > 300 ? b.substring(0, 300) + "..." : b;
  }
}
