package dev.tandem.slurm.modern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import dev.tandem.slurm.Hostlist;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmNode;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Node and job records from data parsers v0.0.41 to v0.0.44.
 *
 * <p>States are arrays there ({@code ["IDLE","DRAIN"]}, {@code ["CANCELLED","COMPLETING"]}): the
 * base state is the entry that names one, whatever its position; every other entry is a flag.
 */
public final class ModernParsers {
  private ModernParsers() {}

  /** Node base states (Slurm's {@code node_state_string} bases). */
  static final Set<String> NODE_BASE =
      Set.of("UNKNOWN", "DOWN", "IDLE", "ALLOCATED", "ERROR", "MIXED", "FUTURE", "INVALID");

  /** Job base states (Slurm's {@code JOB_STATE_BASE} values). */
  static final Set<String> JOB_BASE =
      Set.of(
          "PENDING",
          "RUNNING",
          "SUSPENDED",
          "COMPLETED",
          "CANCELLED",
          "FAILED",
          "TIMEOUT",
          "NODE_FAIL",
          "PREEMPTED",
          "BOOT_FAIL",
          "DEADLINE",
          "OUT_OF_MEMORY");

  /** Flags under which a node's {@code reason} is current rather than left over. */
  private static final Set<String> REASON_FLAGS =
      Set.of("DRAIN", "FAIL", "MAINTENANCE", "REBOOT_REQUESTED", "REBOOT_ISSUED", "POWER_DRAIN");

  public static SlurmNode node(JsonNode n) {
    String name = Json.text(n.get("name"));
    if (name == null) {
      throw new IllegalArgumentException("node without a name: " + abbreviate(n));
    }
    List<String> states = Json.upperList(n.get("state"));
    String base = "UNKNOWN";
    Set<String> flags = new LinkedHashSet<>();
    boolean baseFound = false;
    for (String s : states) {
      if (!baseFound && NODE_BASE.contains(s)) {
        base = s;
        baseFound = true;
      } else {
        flags.add(s);
      }
    }
    String lowerBase = base.toLowerCase(Locale.ROOT);
    // 25.11 keeps the old reason text after UNDRAIN/RESUME; the record's reason is the current
    // drain/down reason, so a left-over text is dropped rather than mistaken for a live drain.
    boolean reasonCurrent =
        "down".equals(lowerBase)
            || "error".equals(lowerBase)
            || flags.stream().anyMatch(REASON_FLAGS::contains);
    return new SlurmNode(
        name,
        lowerBase,
        flags,
        reasonCurrent ? Json.text(n.get("reason")) : null,
        reasonCurrent ? Json.text(n.get("reason_set_by_user")) : null,
        reasonCurrent ? Json.instant(n.get("reason_changed_at")) : null,
        Json.intValue(n.get("cpus"), 0),
        Json.intValue(n.get("alloc_cpus"), 0),
        nonNegative(Json.number(n.get("real_memory"))),
        Json.text(n.get("gres")),
        Json.text(n.get("gres_used")),
        Json.stringList(n.get("partitions")),
        Json.stringList(n.get("features")),
        Json.text(n.get("address")),
        Json.text(n.get("hostname")),
        Json.instant(n.get("slurmd_start_time")),
        Json.instant(n.get("boot_time")),
        Json.text(n.get("version")));
  }

  /**
   * A job record. Listings hand it only the fields in {@link ModernJobs#FIELDS} (the rest is
   * skipped unread): a field read here must be named there too.
   */
  public static SlurmJob job(JsonNode j) {
    Long id = Json.number(j.get("job_id"));
    if (id == null || id <= 0) {
      throw new IllegalArgumentException("job without a job_id: " + abbreviate(j));
    }
    List<String> states = Json.upperList(j.get("job_state"));
    String base = null;
    Set<String> flags = new LinkedHashSet<>();
    for (String s : states) {
      if (base == null && JOB_BASE.contains(s)) {
        base = s;
      } else {
        flags.add(s);
      }
    }
    if (base == null) {
      // No base named (not seen in practice): keep the first entry so callers see something real.
      base = states.isEmpty() ? "UNKNOWN" : states.get(0);
      flags.remove(base);
    }
    boolean terminal =
        !"PENDING".equals(base) && !"RUNNING".equals(base) && !"SUSPENDED".equals(base);
    String nodes = Json.text(j.get("nodes"));
    Long limit = Json.number(j.get("time_limit"));
    return new SlurmJob(
        id,
        Json.text(j.get("name")),
        Json.text(j.get("comment")),
        base,
        flags,
        Json.text(j.get("state_reason")),
        nodes,
        Hostlist.expand(nodes),
        Json.text(j.get("partition")),
        Json.text(j.get("account")),
        Json.text(j.get("qos")),
        Json.text(j.get("user_name")),
        Json.intValue(j.get("restart_cnt"), 0),
        Json.instant(j.get("submit_time")),
        // A pending job's start_time is the scheduler's estimate, a live job's end_time is
        // start + limit: both are forecasts, which the record does not report.
        "PENDING".equals(base) ? null : Json.instant(j.get("start_time")),
        terminal ? Json.instant(j.get("end_time")) : null,
        Json.instant(j.get("preempt_time")),
        limit == null || limit <= 0 ? null : limit,
        // A live job's exit_code is a placeholder (0 or PENDING), not a result.
        terminal ? exitCode(j.get("exit_code")) : null,
        request(j));
  }

  /**
   * The job's size: {@code node_count}, {@code minimum_cpus_per_node}, {@code memory_per_node} and
   * {@code memory_per_cpu} are no-val structs (0 when unset, infinite or not a count), {@code
   * tres_per_node} is {@code gres/gpu:2}, {@code features} the constraint expression.
   */
  static SlurmJob.Request request(JsonNode j) {
    int cpus = Json.count(j.get("minimum_cpus_per_node"));
    return new SlurmJob.Request(
        Json.count(j.get("node_count")),
        cpus,
        SlurmJob.Request.memoryPerNode(
            memory(j.get("memory_per_node")), memory(j.get("memory_per_cpu")), cpus),
        SlurmJob.Request.gresFromTres(Json.text(j.get("tres_per_node"))),
        Json.text(j.get("features")));
  }

  /** A memory no-val struct's MiB; 0 when unset or infinite. */
  private static long memory(JsonNode n) {
    Long v = Json.number(n);
    return v == null ? 0 : v;
  }

  /**
   * The exit code from {@code process_exit_code_verbose}: the return code, or 128+signal for a
   * signalled job (the shell convention), or null while the job has not ended.
   */
  static Integer exitCode(JsonNode e) {
    if (e == null || e.isNull() || e.isMissingNode()) {
      return null;
    }
    if (e.isIntegralNumber()) {
      return e.asInt();
    }
    List<String> status = Json.upperList(e.get("status"));
    if (status.contains("PENDING")) {
      return null;
    }
    Long signal = Json.number(e.path("signal").get("id"));
    if (status.contains("SIGNALED") && signal != null && signal > 0) {
      return 128 + signal.intValue();
    }
    Long rc = Json.number(e.get("return_code"));
    return rc == null ? null : rc.intValue();
  }

  /** The Slurm version a response's meta reports, e.g. {@code 25.11.7}; null if absent. */
  public static String slurmVersion(JsonNode body) {
    JsonNode slurm = slurmMeta(body);
    String release = Json.text(slurm.get("release"));
    if (release != null) {
      return release;
    }
    JsonNode v = slurm.path("version");
    String major = Json.text(v.get("major"));
    if (major == null) {
      return null;
    }
    return major + "." + Json.text(v.get("minor")) + "." + Json.text(v.get("micro"));
  }

  /** The cluster name a response's meta reports, or null. */
  public static String clusterName(JsonNode body) {
    return Json.text(slurmMeta(body).get("cluster"));
  }

  /** {@code meta.slurm}, which older releases spelled {@code meta.Slurm}. */
  private static JsonNode slurmMeta(JsonNode body) {
    JsonNode meta = body == null ? null : body.path("meta");
    if (meta == null || meta.isMissingNode()) {
      return MissingNode.getInstance();
    }
    return meta.has("slurm") ? meta.get("slurm") : meta.path("Slurm");
  }

  private static long nonNegative(Long n) {
    return n == null || n < 0 ? 0 : n;
  }

  private static String abbreviate(JsonNode n) {
    String s = n.toString();
    return s.length() > 160 ? s.substring(0, 160) + "..." : s;
  }
}
