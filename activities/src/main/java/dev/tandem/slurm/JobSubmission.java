package dev.tandem.slurm;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A job to submit. Tandem mostly submits placeholder jobs that hold resources for Kubernetes pods,
 * so the defaults describe one: a script that sleeps until cancelled, output to /dev/null.
 *
 * @param name job name (placeholders: {@link PlaceholderTag#jobName})
 * @param comment job comment (placeholders: {@link PlaceholderTag#comment})
 * @param partition partition, or null for the default
 * @param qos QOS, or null
 * @param account account, or null
 * @param nodeCount number of nodes, or null (1, or the size of {@code nodeList})
 * @param nodeList exact nodes to run on, or empty
 * @param excludeNodes nodes not to run on, or empty
 * @param cpusPerNode CPUs per node (tasks-per-node 1, cpus-per-task n), or null
 * @param memoryMbPerNode memory per node in MB, or null
 * @param gresPerNode GRES per node, e.g. {@code gpu:2}, or null
 * @param timeLimitMinutes time limit, or null for the partition's default
 * @param reservation Slurm reservation to run in, or null
 * @param exclusivity how the job shares its nodes with other jobs ({@link Exclusivity#NONE}: as the
 *     partition allows)
 * @param nice Slurm nice value (positive lowers the priority; negative needs an operator), or null
 * @param noRequeue on preemption, cancel instead of requeue (the job ends PREEMPTED)
 * @param script the batch script (defaults to sleeping until cancelled)
 * @param workingDirectory working directory (default {@code /tmp})
 * @param environment environment of the batch script (mandatory in slurmrestd; default {@code
 *     PATH=/usr/bin:/bin})
 * @param userName run as this user where the API allows it, or null for the token's user
 */
public record JobSubmission(
    String name,
    String comment,
    String partition,
    String qos,
    String account,
    Integer nodeCount,
    List<String> nodeList,
    List<String> excludeNodes,
    Integer cpusPerNode,
    Long memoryMbPerNode,
    String gresPerNode,
    Long timeLimitMinutes,
    String reservation,
    Exclusivity exclusivity,
    Integer nice,
    boolean noRequeue,
    String script,
    String workingDirectory,
    Map<String, String> environment,
    String userName) {

  /**
   * A placeholder sleeps until it is cancelled; Slurm starts and stops it, Kubernetes runs the pod.
   */
  public static final String PLACEHOLDER_SCRIPT = "#!/bin/sh\nexec sleep infinity\n";

  /**
   * The placeholder of a pod scheduled through Slurm ignores SIGTERM: when Slurm preempts or
   * cancels it, Slurm signals it and kills it {@code KillWait} seconds later, and only then gives
   * its resources away. Tandem evicts the pod in that window (a pod's grace period is at most
   * {@code KillWait} minus a margin), so the pod has stopped before another job starts on its
   * resources (docs/scheduling.md, "Preemption and the grace period").
   *
   * <p>{@link #RELEASE_SIGNAL} ends it at once, with exit code 0 (COMPLETED, or CANCELLED when the
   * cancel that follows the signal reaches Slurm first): Tandem sends it when the pod has stopped
   * (succeeded, failed, or gone), so nothing is left to wait for. The shell waits on a child rather
   * than exec'ing {@code sleep}, so that its trap can run; the child inherits the ignored SIGTERM,
   * and Slurm ends it with the job.
   */
  public static final String POD_PLACEHOLDER_SCRIPT =
      "#!/bin/sh\n# tandem: holds the pod's resources until Slurm kills it, or Tandem releases it\n"
          + "trap '' TERM\ntrap 'exit 0' USR1\nsleep infinity &\nwait\n";

  /**
   * The signal that releases a placeholder whose pod has stopped ({@link #POD_PLACEHOLDER_SCRIPT}).
   * A placeholder submitted before the trap existed dies of it (FAILED, signal 10): released too.
   */
  public static final String RELEASE_SIGNAL = "SIGUSR1";

  /** The largest nice value Slurm accepts (either sign). */
  public static final int MAX_NICE = 2147483645;

  public JobSubmission {
    Objects.requireNonNull(name, "name");
    exclusivity = exclusivity == null ? Exclusivity.NONE : exclusivity;
    if (nice != null && (nice > MAX_NICE || nice < -MAX_NICE)) {
      // Slurm stores nice + 2^31 and refuses values within 3 of the edges.
      throw new IllegalArgumentException("nice must be within +-" + MAX_NICE + ": " + nice);
    }
    nodeList = nodeList == null ? List.of() : List.copyOf(nodeList);
    excludeNodes = excludeNodes == null ? List.of() : List.copyOf(excludeNodes);
    script = script == null ? PLACEHOLDER_SCRIPT : script;
    workingDirectory = workingDirectory == null ? "/tmp" : workingDirectory;
    environment =
        environment == null || environment.isEmpty()
            ? Map.of("PATH", "/usr/bin:/bin")
            : Map.copyOf(environment);
  }

  /** Whole nodes only (no other job on them): {@link Exclusivity#EXCLUSIVE}. */
  public boolean exclusive() {
    return exclusivity == Exclusivity.EXCLUSIVE;
  }

  /** How a job shares its nodes with other jobs, as {@code sbatch --exclusive[=user]} says it. */
  public enum Exclusivity {
    /** No request: nodes are shared as the partition's OverSubscribe setting allows. */
    NONE,
    /** Shares nodes only with jobs of the same user ({@code --exclusive=user}). */
    USER,
    /** Whole nodes, shared with no other job ({@code --exclusive}). */
    EXCLUSIVE
  }

  public static Builder builder(String name) {
    return new Builder(name);
  }

  /** Fluent builder, because most fields are optional. */
  public static final class Builder {
    private final String name;
    private String comment;
    private String partition;
    private String qos;
    private String account;
    private Integer nodeCount;
    private List<String> nodeList = List.of();
    private List<String> excludeNodes = List.of();
    private Integer cpusPerNode;
    private Long memoryMbPerNode;
    private String gresPerNode;
    private Long timeLimitMinutes;
    private String reservation;
    private Exclusivity exclusivity = Exclusivity.NONE;
    private Integer nice;
    private boolean noRequeue;
    private String script;
    private String workingDirectory;
    private Map<String, String> environment;
    private String userName;

    private Builder(String name) {
      this.name = name;
    }

    public Builder comment(String v) {
      comment = v;
      return this;
    }

    public Builder partition(String v) {
      partition = v;
      return this;
    }

    public Builder qos(String v) {
      qos = v;
      return this;
    }

    public Builder account(String v) {
      account = v;
      return this;
    }

    public Builder nodeCount(Integer v) {
      nodeCount = v;
      return this;
    }

    public Builder nodeList(List<String> v) {
      nodeList = v;
      return this;
    }

    public Builder excludeNodes(List<String> v) {
      excludeNodes = v;
      return this;
    }

    public Builder cpusPerNode(Integer v) {
      cpusPerNode = v;
      return this;
    }

    public Builder memoryMbPerNode(Long v) {
      memoryMbPerNode = v;
      return this;
    }

    public Builder gresPerNode(String v) {
      gresPerNode = v;
      return this;
    }

    public Builder timeLimitMinutes(Long v) {
      timeLimitMinutes = v;
      return this;
    }

    public Builder reservation(String v) {
      reservation = v;
      return this;
    }

    /** {@code true} is {@link Exclusivity#EXCLUSIVE}, {@code false} {@link Exclusivity#NONE}. */
    public Builder exclusive(boolean v) {
      exclusivity = v ? Exclusivity.EXCLUSIVE : Exclusivity.NONE;
      return this;
    }

    public Builder exclusivity(Exclusivity v) {
      exclusivity = v;
      return this;
    }

    public Builder nice(Integer v) {
      nice = v;
      return this;
    }

    public Builder noRequeue(boolean v) {
      noRequeue = v;
      return this;
    }

    public Builder script(String v) {
      script = v;
      return this;
    }

    public Builder workingDirectory(String v) {
      workingDirectory = v;
      return this;
    }

    public Builder environment(Map<String, String> v) {
      environment = v;
      return this;
    }

    public Builder userName(String v) {
      userName = v;
      return this;
    }

    public JobSubmission build() {
      return new JobSubmission(
          name,
          comment,
          partition,
          qos,
          account,
          nodeCount,
          nodeList,
          excludeNodes,
          cpusPerNode,
          memoryMbPerNode,
          gresPerNode,
          timeLimitMinutes,
          reservation,
          exclusivity,
          nice,
          noRequeue,
          script,
          workingDirectory,
          environment,
          userName);
    }
  }
}
