package dev.tandem.slurm.modern;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.slurm.JobSubmission;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Request bodies for data parsers v0.0.41 to v0.0.44, whose {@code job_desc_msg} and {@code
 * update_node_msg} agree on every field Tandem sends (checked against both specs by the tests).
 *
 * <p>Deliberately never sent: {@code argv} (crashed slurmrestd 22.05), the top-level {@code script}
 * (deprecated; {@code job.script} is used), {@code exclusive} and {@code oversubscribe} (deprecated
 * in v0.0.41, gone in v0.0.44: {@code shared:["none"]} is what {@code sbatch --exclusive} sets,
 * {@code shared:["user"]} what {@code --exclusive=user} sets), {@code nodes} as a count string
 * (ambiguous with a node list in older APIs; {@code minimum_nodes}/{@code maximum_nodes} are
 * typed), {@code no_requeue} (22.05 only) and {@code user_id} (the token's user owns the job;
 * acting as arbitrary users deadlocked a 25.11 slurmctld without accounting).
 */
public final class ModernRequests {
  private ModernRequests() {}

  /**
   * A single node name. Anything that Slurm could read as a hostlist expression ({@code n[1-9]},
   * {@code a,b}) is refused: {@code POST /node/{name}} would change every node it expands to.
   */
  private static final Pattern NODE_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,252}");

  /** Signal names or numbers as {@code scancel --signal} takes them. */
  private static final Pattern SIGNAL = Pattern.compile("(SIG)?[A-Z][A-Z0-9+]{0,15}|[0-9]{1,2}");

  /** The environment key grammar of POSIX shells. */
  private static final Pattern ENV_KEY = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  public static String checkNodeName(String name) {
    if (name == null || !NODE_NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "not a single Slurm node name (letters, digits, '.', '_', '-'; no hostlist): " + name);
    }
    return name;
  }

  public static String checkSignal(String signal) {
    if (signal != null && !SIGNAL.matcher(signal).matches()) {
      throw new IllegalArgumentException(
          "not a signal name or number (e.g. SIGTERM, TERM, 15): " + signal);
    }
    return signal;
  }

  /** {@code update_node_msg}: a state list and, for DRAIN and DOWN, the reason Slurm requires. */
  public static ObjectNode nodeUpdate(String state, String reason) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.putArray("state").add(state);
    if (reason != null) {
      if (reason.isBlank()) {
        throw new IllegalArgumentException("a " + state + " needs a non-blank reason");
      }
      o.put("reason", reason);
    }
    return o;
  }

  /** The key of a node line, any case as slurm.conf allows, then one node name. */
  private static final Pattern NODE_LINE = Pattern.compile("(?i:NodeName)=([^\\s]+)(\\s.*)?");

  /**
   * The node name of a slurm.conf node line, checked to be one name: {@code NodeName=n[1-9]} would
   * create nine nodes, and a second line would be a second node.
   */
  public static String nodeLineName(String nodeLine) {
    if (nodeLine == null || nodeLine.contains("\n") || nodeLine.contains("\r")) {
      throw new IllegalArgumentException("a node line is one line: " + nodeLine);
    }
    java.util.regex.Matcher m = NODE_LINE.matcher(nodeLine.strip());
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "a node line starts with NodeName=<name>, e.g. 'NodeName=gpu-a-7 State=FUTURE CPUs=8': "
              + nodeLine);
    }
    return checkNodeName(m.group(1));
  }

  /** {@code openapi_create_node_req}: the node line as {@code node_conf}. */
  public static ObjectNode createNode(String nodeLine) {
    nodeLineName(nodeLine);
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("node_conf", nodeLine.strip());
    return o;
  }

  /** {@code job_submit_req} with everything in {@code job}. */
  public static ObjectNode submit(JobSubmission s) {
    validate(s);
    ObjectNode req = Json.MAPPER.createObjectNode();
    ObjectNode job = req.putObject("job");
    job.put("name", s.name());
    putIfSet(job, "comment", s.comment());
    putIfSet(job, "partition", s.partition());
    putIfSet(job, "qos", s.qos());
    putIfSet(job, "account", s.account());

    // An exact count (JobSubmission: null means 1, or the size of the node list): a placeholder
    // must get exactly the nodes its pods need.
    int count =
        s.nodeCount() != null ? s.nodeCount() : s.nodeList().isEmpty() ? 1 : s.nodeList().size();
    job.put("minimum_nodes", count);
    job.put("maximum_nodes", count);
    if (!s.nodeList().isEmpty()) {
      strings(job.putArray("required_nodes"), s.nodeList());
    }
    if (!s.excludeNodes().isEmpty()) {
      strings(job.putArray("excluded_nodes"), s.excludeNodes());
    }
    if (s.cpusPerNode() != null) {
      // One task per node holding all requested CPUs, as `sbatch --ntasks-per-node=1 -c N`
      // (sbatch also fills in the total task count itself).
      job.put("tasks", count);
      job.put("tasks_per_node", 1);
      job.put("cpus_per_task", s.cpusPerNode());
    }
    if (s.memoryMbPerNode() != null) {
      job.set("memory_per_node", Json.setNumber(s.memoryMbPerNode()));
    }
    if (s.gresPerNode() != null) {
      job.put("tres_per_node", tresPerNode(s.gresPerNode()));
    }
    if (s.timeLimitMinutes() != null) {
      job.set("time_limit", Json.setNumber(s.timeLimitMinutes()));
    }
    putIfSet(job, "reservation", s.reservation());
    switch (s.exclusivity()) {
      case EXCLUSIVE -> job.putArray("shared").add("none");
      case USER -> job.putArray("shared").add("user");
      case NONE -> {
        // Nothing sent: the partition's OverSubscribe setting decides.
      }
    }
    if (s.nice() != null) {
      job.put("nice", s.nice());
    }
    if (s.noRequeue()) {
      job.put("requeue", false);
    }
    ArrayNode env = job.putArray("environment");
    // Sorted, so the same submission always gives the same body.
    for (Map.Entry<String, String> e : new TreeMap<>(s.environment()).entrySet()) {
      env.add(e.getKey() + "=" + e.getValue());
    }
    job.put("script", s.script());
    job.put("current_working_directory", s.workingDirectory());
    // The default output file <cwd>/slurm-%j.out would pile up on the node for every placeholder.
    job.put("standard_output", "/dev/null");
    job.put("standard_error", "/dev/null");
    return req;
  }

  /**
   * GRES as a TRES list, the way sbatch turns {@code --gres=gpu:2} into {@code gres/gpu:2}; entries
   * that already name a TRES type are kept.
   */
  static String tresPerNode(String gres) {
    StringBuilder sb = new StringBuilder();
    for (String part : gres.split(",")) {
      String p = part.trim();
      if (p.isEmpty()) {
        continue;
      }
      if (sb.length() > 0) {
        sb.append(',');
      }
      sb.append(p.contains("/") ? p : "gres/" + p);
    }
    if (sb.length() == 0) {
      throw new IllegalArgumentException("empty GRES specification: '" + gres + "'");
    }
    return sb.toString();
  }

  private static void validate(JobSubmission s) {
    if (s.name().isBlank()) {
      throw new IllegalArgumentException("job name must not be blank");
    }
    positive("nodeCount", s.nodeCount());
    positive("cpusPerNode", s.cpusPerNode());
    positive("memoryMbPerNode", s.memoryMbPerNode());
    positive("timeLimitMinutes", s.timeLimitMinutes());
    if (s.nodeCount() != null && s.nodeCount() < s.nodeList().size()) {
      throw new IllegalArgumentException(
          "nodeCount "
              + s.nodeCount()
              + " is smaller than the "
              + s.nodeList().size()
              + " required nodes "
              + s.nodeList());
    }
    s.nodeList().forEach(ModernRequests::checkNodeName);
    s.excludeNodes().forEach(ModernRequests::checkNodeName);
    for (String n : s.nodeList()) {
      if (s.excludeNodes().contains(n)) {
        throw new IllegalArgumentException("node " + n + " is both required and excluded");
      }
    }
    for (String k : s.environment().keySet()) {
      if (!ENV_KEY.matcher(k).matches()) {
        throw new IllegalArgumentException("not an environment variable name: '" + k + "'");
      }
    }
    if (s.script().isBlank() || !s.script().startsWith("#!")) {
      throw new IllegalArgumentException("a batch script must start with #! (Slurm refuses it)");
    }
  }

  private static void positive(String what, Number n) {
    if (n != null && n.longValue() <= 0) {
      throw new IllegalArgumentException(what + " must be positive, got " + n);
    }
  }

  private static void putIfSet(ObjectNode o, String key, String value) {
    if (value != null && !value.isBlank()) {
      o.put(key, value);
    }
  }

  private static void strings(ArrayNode a, List<String> values) {
    values.forEach(a::add);
  }
}
