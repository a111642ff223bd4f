package dev.tandem.slurm.fake;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;

/**
 * JSON as slurmrestd 25.11 (data parser v0.0.44) writes it: {@code meta}/{@code errors}/{@code
 * warnings} on every answer, numbers as {@code {set, infinite, number}}, states as arrays. Only the
 * fields Tandem reads are written (every one a v0.0.44 field; the contract tests check the answers
 * against the spec).
 */
final class FakeJson {
  static final ObjectMapper MAPPER = new ObjectMapper();
  static final String RELEASE = "25.11.7";

  private final String cluster;

  FakeJson(String cluster) {
    this.cluster = cluster;
  }

  ObjectNode answer() {
    ObjectNode o = MAPPER.createObjectNode();
    ObjectNode meta = o.putObject("meta");
    meta.putObject("plugin")
        .put("type", "openapi/slurmctld")
        .put("name", "Slurm OpenAPI slurmctld")
        .put("data_parser", "data_parser/v0.0.44")
        .put("accounting_storage", "");
    meta.putObject("client").put("source", "fake").put("user", "slurm").put("group", "slurm");
    meta.putArray("command");
    ObjectNode slurm = meta.putObject("slurm");
    slurm.putObject("version").put("major", "25").put("micro", "7").put("minor", "11");
    slurm.put("release", RELEASE).put("cluster", cluster);
    o.putArray("errors");
    o.putArray("warnings");
    return o;
  }

  ObjectNode error(int number, String error, String description, String source) {
    ObjectNode o = answer();
    ((ArrayNode) o.get("errors"))
        .addObject()
        .put("description", description)
        .put("error_number", number)
        .put("error", error)
        .put("source", source);
    return o;
  }

  static void warn(ObjectNode answer, String description, String source) {
    ((ArrayNode) answer.get("warnings"))
        .addObject()
        .put("description", description)
        .put("source", source);
  }

  static ObjectNode number(Long n) {
    ObjectNode o = MAPPER.createObjectNode();
    o.put("set", n != null).put("infinite", false).put("number", n == null ? 0 : n);
    return o;
  }

  static ObjectNode time(Instant t) {
    return number(t == null ? 0L : t.getEpochSecond());
  }

  void node(ArrayNode out, FakeNode n, FakeScheduler s) {
    ObjectNode o = out.addObject();
    o.put("name", n.name);
    int alloc = s.allocCpus(n);
    ArrayNode state = o.putArray("state");
    state.add(n.base(alloc, s.wholeNode(n)).name());
    n.flags.forEach(f -> state.add(f.name()));
    o.put("reason", n.reason == null ? "" : n.reason);
    o.put("reason_set_by_user", n.reasonSetBy == null ? "" : n.reasonSetBy);
    o.set("reason_changed_at", time(n.reasonChangedAt));
    o.put("cpus", n.cpus);
    o.put("alloc_cpus", alloc);
    o.put("alloc_idle_cpus", n.cpus - alloc);
    o.put("real_memory", n.memoryMb);
    o.put("alloc_memory", s.allocMemory(n));
    o.put("gres", n.gres);
    o.put("gres_used", gres(s.gresUsed(n, j -> true)));
    strings(o.putArray("partitions"), n.partitions);
    strings(o.putArray("features"), n.features);
    strings(o.putArray("active_features"), n.features);
    o.put("address", "127.0.0.1");
    o.put("hostname", n.name);
    o.set("slurmd_start_time", time(n.slurmdStartTime));
    o.set("boot_time", time(n.bootTime));
    o.set("last_busy", time(n.lastBusy));
    o.put("version", RELEASE);
  }

  void job(ArrayNode out, FakeJob j) {
    ObjectNode o = out.addObject();
    o.put("job_id", j.id);
    if (j.nodes.isEmpty()) {
      // 25.11.7 sends null for every job without an allocation (the spec says object); an
      // allocation's job_res object is not modelled (Tandem does not read it).
      o.putNull("job_resources");
    }
    o.put("name", j.name);
    o.put("comment", j.comment == null ? "" : j.comment);
    o.putArray("job_state").add(j.state.name());
    o.put("state_reason", j.reason);
    o.put("nodes", String.join(",", j.nodes));
    o.put("partition", j.partition);
    o.put("account", j.account);
    o.put("qos", j.qos);
    o.put("user_name", j.user);
    // What the job asks for: node_count is the request while it waits, its allocation once placed.
    o.set("node_count", number((long) (j.nodes.isEmpty() ? j.nodeCount : j.nodes.size())));
    o.set("minimum_cpus_per_node", number((long) j.cpusPerNode));
    // Tandem submits --mem (memory_per_node), never --mem-per-cpu.
    o.set("memory_per_node", number(j.memoryMbPerNode > 0 ? j.memoryMbPerNode : null));
    o.set("memory_per_cpu", number(null));
    o.put("tres_per_node", j.tresPerNode == null ? "" : j.tresPerNode);
    // Submitted constraints are not read (Tandem sends none): no job has features.
    o.put("features", "");
    o.put("restart_cnt", j.restarts);
    o.set("submit_time", time(j.submitTime));
    o.set("start_time", time(j.startTime));
    o.set("end_time", time(j.endTime));
    o.set("preempt_time", time(j.preemptTime));
    ObjectNode limit = o.putObject("time_limit");
    limit.put("set", j.timeLimitMinutes != null).put("infinite", j.timeLimitMinutes == null);
    limit.put("number", j.timeLimitMinutes == null ? 0 : j.timeLimitMinutes);
    o.put("requeue", j.requeue);
    ArrayNode shared = o.putArray("shared");
    switch (j.sharing) {
      case EXCLUSIVE -> shared.add("none");
      case USER -> shared.add("user");
      case SHARED -> {
        // Nothing asked: the partition's OverSubscribe decides; slurmrestd lists no flag.
      }
    }
    ObjectNode exit = o.putObject("exit_code");
    exit.putArray("status").add(exitStatus(j));
    exit.set("return_code", number(j.signaled ? 0L : (long) j.exit));
    ObjectNode sig = exit.putObject("signal");
    sig.set("id", number(j.signaled ? (long) j.exit : null));
    sig.put("name", "");
  }

  private static String exitStatus(FakeJob j) {
    if (!j.state.ended()) {
      return "PENDING";
    }
    return j.signaled ? "SIGNALED" : j.exit != 0 ? "ERROR" : "SUCCESS";
  }

  private static String gres(Map<String, Integer> used) {
    StringBuilder sb = new StringBuilder();
    used.forEach((k, v) -> sb.append(sb.length() == 0 ? "" : ",").append(k).append(':').append(v));
    return sb.toString();
  }

  private static void strings(ArrayNode a, Collection<String> values) {
    values.forEach(a::add);
  }

  /** The ping answer; {@code up} false is 25.11's answer with slurmctld stopped (still a 200). */
  ObjectNode ping(boolean up) {
    ObjectNode o = answer();
    o.putArray("pings")
        .addObject()
        .put("hostname", "fake-slurmctld")
        .put("pinged", up ? "UP" : "DOWN")
        .put("latency", 100)
        .put("mode", "primary")
        .put("responding", up)
        .put("primary", true);
    return o;
  }

  /** One {@code status[]} entry of a cancel answer: 2017, 2021 or 2020. */
  static void cancelStatus(ArrayNode status, long id, int code) {
    String text =
        switch (code) {
          case 2017 -> "Invalid job id specified";
          case 2021 -> "Job/step already completing or completed";
          default -> "Job can not be altered now, try again later";
        };
    ObjectNode s = status.addObject();
    s.putObject("error").put("string", text).put("code", code).put("message", text);
    s.put("step_id", Long.toString(id));
    s.set("job_id", number(id));
    s.putObject("federation").put("sibling", "");
  }
}
