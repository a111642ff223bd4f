package dev.tandem.slurm.fake;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.slurm.fake.FakeJob.JobRequest;
import dev.tandem.slurm.fake.FakeJob.Sharing;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code job_submit_req}, {@code update_node_msg} and {@code openapi_create_node_req} bodies read
 * into the fake's terms.
 */
final class FakeRequests {
  private FakeRequests() {}

  static JobRequest job(JsonNode body, String defaultPartition) {
    JsonNode j = body.path("job");
    if (!j.isObject()) {
      throw new FakeSlurmError(400, 9001, "Unable to parse", "job_submit_req without job");
    }
    if (!j.path("environment").isArray() || j.path("environment").isEmpty()) {
      // 25.11 fails a submit without an environment (docs/slurm-versions.md).
      throw FakeSlurmError.refused(
          2019, "Job environment variables not set", "Batch job submission failed");
    }
    if (!j.path("script").asText("").startsWith("#!")) {
      throw FakeSlurmError.refused(
          2044, "Batch script is empty or missing #!", "Batch job submission failed");
    }
    int nodes = Math.max(1, j.path("minimum_nodes").asInt(1));
    int cpus =
        Math.max(1, j.path("cpus_per_task").asInt(1))
            * Math.max(1, j.path("tasks_per_node").asInt(1));
    Sharing sharing = Sharing.SHARED;
    for (JsonNode s : j.path("shared")) {
      if ("none".equals(s.asText())) {
        sharing = Sharing.EXCLUSIVE;
      } else if ("user".equals(s.asText())) {
        sharing = Sharing.USER;
      }
    }
    String partition = text(j, "partition");
    return new JobRequest(
        j.path("name").asText(""),
        text(j, "comment"),
        partition == null ? defaultPartition : partition,
        text(j, "account"),
        text(j, "qos"),
        nodes,
        strings(j.path("required_nodes")),
        strings(j.path("excluded_nodes")),
        cpus,
        number(j.path("memory_per_node"), 0L),
        j.has("tres_per_node") ? Gres.parse(j.path("tres_per_node").asText()) : Map.of(),
        text(j, "tres_per_node"),
        j.has("time_limit") ? number(j.path("time_limit"), null) : null,
        sharing,
        j.path("requeue").asBoolean(true),
        text(j, "reservation"));
  }

  /** The {@code state} list of an {@code update_node_msg}. */
  static List<String> states(JsonNode body) {
    List<String> out = strings(body.path("state"));
    if (out.isEmpty()) {
      throw new FakeSlurmError(400, 9001, "Unable to parse", "update_node_msg without state");
    }
    return out;
  }

  /**
   * The node of an {@code openapi_create_node_req}: NodeName, CPUs, RealMemory, Gres and Feature of
   * its {@code node_conf} line (keys ignore case, as in slurm.conf). A line without NodeName is
   * slurmctld's −1; a State other than FUTURE, CLOUD or EXTERNAL its 2028.
   */
  static FakeSlurmrestd.NodeSpec nodeLine(JsonNode body) {
    Map<String, String> kv = new HashMap<>();
    for (String part : body.path("node_conf").asText("").trim().split("\\s+")) {
      int i = part.indexOf('=');
      if (i > 0) {
        kv.put(part.substring(0, i).toLowerCase(java.util.Locale.ROOT), part.substring(i + 1));
      }
    }
    String name = kv.get("nodename");
    if (name == null || name.isEmpty()) {
      throw FakeSlurmError.refused(-1, "Unspecified error", "Failure to create node");
    }
    String state = kv.getOrDefault("state", "").toUpperCase(java.util.Locale.ROOT);
    if (!List.of("FUTURE", "CLOUD", "EXTERNAL").contains(state)) {
      throw FakeSlurmError.refused(2028, "Invalid node state specified", "Failure to create node");
    }
    String features = kv.getOrDefault("feature", kv.getOrDefault("features", ""));
    return new FakeSlurmrestd.NodeSpec(
        name,
        Integer.parseInt(kv.getOrDefault("cpus", "1")),
        Long.parseLong(kv.getOrDefault("realmemory", "1")),
        features.isEmpty() ? List.of() : List.of(features.split(",")),
        kv.getOrDefault("gres", ""));
  }

  static String text(JsonNode o, String key) {
    String s = o.path(key).asText("");
    return s.isBlank() ? null : s;
  }

  private static Long number(JsonNode n, Long unset) {
    if (n.isNumber()) {
      return n.asLong();
    }
    if (n.path("set").asBoolean(false) && !n.path("infinite").asBoolean(false)) {
      return n.path("number").asLong();
    }
    return unset;
  }

  private static List<String> strings(JsonNode a) {
    List<String> out = new ArrayList<>();
    if (a.isArray()) {
      a.forEach(e -> out.add(e.asText()));
    } else if (a.isTextual() && !a.asText().isBlank()) {
      out.addAll(List.of(a.asText().split(",")));
    }
    return out;
  }

  /** The first value of each query parameter. */
  static Map<String, String> query(String raw) {
    Map<String, String> out = new HashMap<>();
    if (raw == null) {
      return out;
    }
    for (String kv : raw.split("&")) {
      int i = kv.indexOf('=');
      String k = URLDecoder.decode(i < 0 ? kv : kv.substring(0, i), StandardCharsets.UTF_8);
      String v = i < 0 ? "" : URLDecoder.decode(kv.substring(i + 1), StandardCharsets.UTF_8);
      out.putIfAbsent(k, v);
    }
    return out;
  }
}
