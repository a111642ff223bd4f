package dev.tandem.slurm;

import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * A Slurm job as Tandem sees it, whatever the REST API version.
 *
 * @param id job id
 * @param name job name
 * @param comment job comment (Tandem tags its placeholder jobs here)
 * @param state upper-case base state: {@code PENDING}, {@code RUNNING}, {@code SUSPENDED}, {@code
 *     COMPLETING}, {@code COMPLETED}, {@code CANCELLED}, {@code FAILED}, {@code TIMEOUT}, {@code
 *     PREEMPTED}, {@code NODE_FAIL}, {@code BOOT_FAIL}, {@code DEADLINE}, {@code OUT_OF_MEMORY}
 * @param stateFlags extra upper-case flags where the API gives them ({@code COMPLETING}, {@code
 *     REQUEUED}, ...), else empty
 * @param stateReason Slurm's reason for the state ({@code None}, {@code Resources}, {@code
 *     BeginTime}, ...)
 * @param nodes the allocated nodes as a Slurm hostlist expression, or empty
 * @param nodeList {@code nodes} expanded to single names
 * @param partition partition
 * @param account account, or null
 * @param qos QOS, or null
 * @param userName submitting user, or null
 * @param restartCount how often the job was requeued
 * @param submitTime submit time, or null
 * @param startTime start time, or null (future/estimated start for pending jobs is not reported)
 * @param endTime end time, or null
 * @param preemptTime when the job was preempted, or null
 * @param timeLimitMinutes time limit, or null for none/infinite
 * @param exitCode the exit code, or null
 * @param request what the job asks for on each node and how many nodes, {@link Request#UNKNOWN}
 *     when Slurm did not say (null reads as that)
 */
public record SlurmJob(
    long id,
    String name,
    String comment,
    String state,
    Set<String> stateFlags,
    String stateReason,
    String nodes,
    List<String> nodeList,
    String partition,
    String account,
    String qos,
    String userName,
    int restartCount,
    Instant submitTime,
    Instant startTime,
    Instant endTime,
    Instant preemptTime,
    Long timeLimitMinutes,
    Integer exitCode,
    Request request) {

  /** States in which the job may hold resources on its nodes. */
  public static final Set<String> ACTIVE_STATES =
      Set.of("RUNNING", "SUSPENDED", "COMPLETING", "CONFIGURING", "STAGE_OUT", "RESIZING");

  public SlurmJob {
    stateFlags = Set.copyOf(stateFlags);
    nodeList = List.copyOf(nodeList);
    nodes = nodes == null ? "" : nodes;
    request = request == null ? Request.UNKNOWN : request;
  }

  /**
   * The size of a job: enough for an autoscaler to tell how many nodes of a given shape it needs.
   *
   * @param nodes the nodes the job asks for (pending) or holds (running); 0 when unknown
   * @param cpusPerNode the minimum CPUs the job needs on each node; 0 when unknown
   * @param memoryMbPerNode the memory the job needs on each node in MiB ({@code --mem}, or {@code
   *     --mem-per-cpu} times {@code cpusPerNode}; see {@link #memoryPerNode}); 0 when unknown or
   *     not asked
   * @param gresPerNode the GRES the job needs on each node in slurm.conf form ({@code gpu:2},
   *     {@code gpu:h100:2,nic:1}; see {@link #gresFromTres}), or null for none
   * @param features the job's feature constraint expression as Slurm gives it ({@code h100&ib}), or
   *     null for none
   */
  public record Request(
      int nodes, int cpusPerNode, long memoryMbPerNode, String gresPerNode, String features) {
    /** Nothing known: what a job Slurm said nothing about, or a test about something else, has. */
    public static final Request UNKNOWN = new Request(0, 0, 0, null, null);

    public Request {
      nodes = Math.max(0, nodes);
      cpusPerNode = Math.max(0, cpusPerNode);
      memoryMbPerNode = Math.max(0, memoryMbPerNode);
      gresPerNode = gresPerNode == null || gresPerNode.isBlank() ? null : gresPerNode;
      features = features == null || features.isBlank() ? null : features;
    }

    /**
     * The MiB a job needs per node from Slurm's {@code memory_per_node} and {@code memory_per_cpu}
     * (0 or less: not set; a job sets one of them): the first, or the second times {@code
     * cpusPerNode}. A value of 2^62 or more (Slurm's NO_VAL and flag bits) is unknown (0).
     */
    public static long memoryPerNode(long perNode, long perCpu, int cpusPerNode) {
      long cap = 1L << 62;
      if (perNode > 0) {
        return perNode < cap ? perNode : 0;
      }
      return perCpu > 0 && cpusPerNode > 0 && perCpu < cap / cpusPerNode ? perCpu * cpusPerNode : 0;
    }

    /**
     * Slurm's {@code tres_per_node} in slurm.conf form: 22.05 writes {@code gres:gpu:2}, later
     * releases {@code gres/gpu:2} or {@code gres/gpu=2}; each becomes {@code gpu:2} ({@code
     * gres/gpu:h100=2} becomes {@code gpu:h100:2}). Entries stay comma-separated; an entry naming
     * another TRES type ({@code license/x=1}) is no GRES and is left out. Null or blank is null.
     */
    public static String gresFromTres(String tresPerNode) {
      if (tresPerNode == null) {
        return null;
      }
      StringBuilder out = new StringBuilder();
      for (String raw : tresPerNode.split(",")) {
        String e = raw.trim();
        if (e.startsWith("gres:") || e.startsWith("gres/")) {
          e = e.substring("gres/".length());
        } else if (e.contains("/")) {
          continue;
        }
        e = e.replace('=', ':');
        if (!e.isEmpty()) {
          out.append(out.length() == 0 ? "" : ",").append(e);
        }
      }
      return out.length() == 0 ? null : out.toString();
    }
  }

  /**
   * States in which a job holds nothing on any node: waiting, or over for good. Every other state,
   * including one this client does not know (a newer Slurm's), may hold nodes.
   */
  public static final Set<String> RELEASED_STATES =
      Set.of(
          "PENDING",
          "COMPLETED",
          "CANCELLED",
          "FAILED",
          "TIMEOUT",
          "NODE_FAIL",
          "PREEMPTED",
          "BOOT_FAIL",
          "DEADLINE",
          "OUT_OF_MEMORY",
          "REQUEUED",
          "REQUEUE_HOLD",
          "REQUEUE_FED",
          "SPECIAL_EXIT",
          "REVOKED",
          "RESV_DEL_HOLD");

  /**
   * Whether the job may hold resources on its nodes, failing closed: {@link #active()}, or a state
   * not known to release them. What decides that a node is idle (safe to update or delete) asks
   * this, never {@link #active()} alone.
   */
  public boolean mayHoldNodes() {
    return active() || !RELEASED_STATES.contains(state);
  }

  /** The job holds (or may still hold) resources on its nodes. */
  public boolean active() {
    return ACTIVE_STATES.contains(state)
        || stateFlags.contains("COMPLETING")
        || stateFlags.contains("CONFIGURING");
  }

  public boolean pending() {
    return "PENDING".equals(state);
  }

  public boolean running() {
    return "RUNNING".equals(state);
  }

  /** The job will not run again. */
  public boolean finished() {
    return !pending() && !active() && !"REQUEUED".equals(state);
  }
}
