package dev.tandem.slurm;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A job to submit. Tandem mostly submits placeholder jobs that hold resources for Kubernetes pods,
 * so the defaults describe one: a script that sleeps until cancelled, output to /dev/null.
 *
 * @param name job name (Tandem tags: e.g. {@code tandem:<ns>/<pod>})
 * @param comment job comment (Tandem tags it with the owning workflow id)
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
 * @param exclusive whole nodes only
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
    boolean exclusive,
    boolean noRequeue,
    String script,
    String workingDirectory,
    Map<String, String> environment,
    String userName) {

  /**
   * A placeholder sleeps until it is cancelled; Slurm starts and stops it, Kubernetes runs the pod.
   */
  public static final String PLACEHOLDER_SCRIPT = "#!/bin/sh\nexec sleep infinity\n";

  public JobSubmission {
    Objects.requireNonNull(name, "name");
    nodeList = nodeList == null ? List.of() : List.copyOf(nodeList);
    excludeNodes = excludeNodes == null ? List.of() : List.copyOf(excludeNodes);
    script = script == null ? PLACEHOLDER_SCRIPT : script;
    workingDirectory = workingDirectory == null ? "/tmp" : workingDirectory;
    environment =
        environment == null || environment.isEmpty()
            ? Map.of("PATH", "/usr/bin:/bin")
            : Map.copyOf(environment);
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
    private boolean exclusive;
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

    public Builder exclusive(boolean v) {
      exclusive = v;
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
          exclusive,
          noRequeue,
          script,
          workingDirectory,
          environment,
          userName);
    }
  }
}
