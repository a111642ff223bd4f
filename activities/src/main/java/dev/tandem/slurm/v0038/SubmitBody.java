package dev.tandem.slurm.v0038;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.slurm.JobSubmission;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The {@code POST /job/submit} body slurmrestd 22.05 accepts. Its rules were found by trial
 * (docs/slurm-client.md), not in its OpenAPI document:
 *
 * <ul>
 *   <li>{@code nodes} is a COUNT ("2"); the node list is {@code nodelist}.
 *   <li>{@code exclusive} takes "exclusive" or "user" (true is rejected).
 *   <li>{@code no_requeue: true} (requeue:false is silently ignored).
 *   <li>{@code environment} is mandatory.
 *   <li>unknown keys fail the request (400); and {@code argv} must never be sent: it crashes
 *       slurmrestd 22.05.8.
 * </ul>
 */
final class SubmitBody {
  private SubmitBody() {}

  static String json(JobSubmission s) {
    ObjectNode root = V0038Json.JSON.createObjectNode();
    root.put("script", s.script());
    ObjectNode job = root.putObject("job");
    job.put("name", s.name());
    putIf(job, "comment", s.comment());
    putIf(job, "partition", s.partition());
    putIf(job, "qos", s.qos());
    putIf(job, "account", s.account());
    Integer count = s.nodeCount();
    if (count == null && !s.nodeList().isEmpty()) {
      count = s.nodeList().size();
    }
    if (count != null) {
      if (count < 1) {
        throw new IllegalArgumentException("node count must be at least 1: " + count);
      }
      job.put("nodes", Integer.toString(count));
    }
    if (!s.nodeList().isEmpty()) {
      job.put("nodelist", names(s.nodeList()));
    }
    if (!s.excludeNodes().isEmpty()) {
      job.put("exclude_nodes", names(s.excludeNodes()));
    }
    if (s.cpusPerNode() != null) {
      // One task per node holding all its CPUs: what a pod placeholder needs.
      job.put("tasks_per_node", 1);
      job.put("cpus_per_task", s.cpusPerNode());
    }
    if (s.memoryMbPerNode() != null) {
      job.put("memory_per_node", s.memoryMbPerNode());
    }
    putIf(job, "gres", s.gresPerNode());
    if (s.timeLimitMinutes() != null) {
      job.put("time_limit", s.timeLimitMinutes());
    }
    putIf(job, "reservation", s.reservation());
    switch (s.exclusivity()) {
      case EXCLUSIVE -> job.put("exclusive", "exclusive");
      case USER -> job.put("exclusive", "user");
      case NONE -> {
        // Nothing sent: the partition's OverSubscribe setting decides.
      }
    }
    if (s.nice() != null) {
      job.put("nice", s.nice());
    }
    if (s.noRequeue()) {
      job.put("no_requeue", true);
    }
    job.put("current_working_directory", s.workingDirectory());
    job.put("standard_output", "/dev/null");
    job.put("standard_error", "/dev/null");
    ObjectNode env = job.putObject("environment");
    for (Map.Entry<String, String> e : new TreeMap<>(s.environment()).entrySet()) {
      env.put(e.getKey(), e.getValue());
    }
    return root.toString();
  }

  private static String names(List<String> nodes) {
    for (String n : nodes) {
      SlurmClientV0038.checkNodeName(n);
    }
    return String.join(",", nodes);
  }

  private static void putIf(ObjectNode o, String key, String value) {
    if (value != null && !value.isBlank()) {
      o.put(key, value);
    }
  }
}
