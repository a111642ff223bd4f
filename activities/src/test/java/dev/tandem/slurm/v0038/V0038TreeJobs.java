package dev.tandem.slurm.v0038;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.slurm.Hostlist;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmUnavailableException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The oracle: how the v0.0.38 adapter read job answers before {@link V0038Jobs}, as one Jackson
 * tree (the code as it was in V0038Json and SlurmClientV0038). Kept only to hold the streaming
 * reader equal to it (V0038JobsOracleTest) and to measure both (JobListingParseBench).
 */
final class V0038TreeJobs {
  private V0038TreeJobs() {}

  /** Stands for the adapter's {@code failure(r, ...)}: the answer named a Slurm error. */
  static final Object SLURM_ERRORS = "SLURM_ERRORS";

  /**
   * What the adapter made of a 2xx job answer: its jobs, or {@link #SLURM_ERRORS}; a broken answer
   * throws as it did.
   */
  static Object read(String body, String context) {
    JsonNode root = V0038Json.parse(body, context);
    if (V0038Errors.errors(root).stream().anyMatch(e -> e.number() != 0)) {
      return SLURM_ERRORS;
    }
    return jobs(root, context);
  }

  static SlurmJob job(JsonNode j) {
    String state = upper(V0038Json.text(j, "job_state"));
    state = state == null ? "UNKNOWN" : state;
    String nodes = V0038Json.text(j, "nodes");
    boolean ended = !V0038Json.NOT_ENDED.contains(state);
    long limit = V0038Json.number(j, "time_limit", -1);
    return new SlurmJob(
        V0038Json.number(j, "job_id", 0),
        V0038Json.text(j, "name"),
        V0038Json.text(j, "comment"),
        state,
        Set.of(),
        V0038Json.text(j, "state_reason"),
        nodes,
        Hostlist.expand(nodes),
        V0038Json.text(j, "partition"),
        V0038Json.text(j, "account"),
        V0038Json.text(j, "qos"),
        V0038Json.text(j, "user_name"),
        (int) V0038Json.number(j, "restart_cnt", 0),
        V0038Json.instant(j, "submit_time"),
        "PENDING".equals(state) ? null : V0038Json.instant(j, "start_time"),
        ended ? V0038Json.instant(j, "end_time") : null,
        V0038Json.instant(j, "preempt_time"),
        limit < 0 || limit >= V0038Json.NO_VAL32 ? null : limit,
        j.hasNonNull("exit_code") && j.get("exit_code").canConvertToInt()
            ? V0038Json.exitCode(j.get("exit_code").asInt())
            : null,
        V0038Json.request(
            V0038Json.number(j, "node_count", 0),
            V0038Json.number(j, "minimum_cpus_per_node", 0),
            V0038Json.number(j, "memory_per_node", 0),
            V0038Json.number(j, "memory_per_cpu", 0),
            V0038Json.text(j, "tres_per_node"),
            V0038Json.text(j, "features")));
  }

  /** Every job of a listing; as {@code nodes}, a listing that cannot be read whole fails. */
  static List<SlurmJob> jobs(JsonNode root, String context) {
    List<SlurmJob> out = new ArrayList<>();
    for (JsonNode j : list(root, "jobs", context)) {
      try {
        out.add(job(j));
      } catch (IllegalArgumentException e) {
        // A node list Tandem cannot expand: which nodes the job holds is unknown.
        throw new SlurmUnavailableException(
            context + ": slurmrestd answered an unreadable job: " + e.getMessage(), e);
      }
    }
    return out;
  }

  private static JsonNode list(JsonNode root, String key, String context) {
    JsonNode a = root.get(key);
    if (a == null || !a.isArray()) {
      throw new SlurmUnavailableException(
          context
              + ": slurmrestd answered without a \""
              + key
              + "\" list: "
              + V0038Json.snippet(root.toString()));
    }
    return a;
  }

  private static String upper(String s) {
    return s == null ? null : s.toUpperCase(Locale.ROOT);
  }
}
