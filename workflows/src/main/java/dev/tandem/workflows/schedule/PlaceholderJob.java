package dev.tandem.workflows.schedule;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * The Slurm job that holds a pod's resources while the pod runs (see {@link PlaceholderJobs}).
 * Submitted by {@code SchedulingActivities.submitPlaceholder}, which first looks for a job with
 * this {@link #name} so that a retried or replayed submit never makes a second job.
 *
 * @param name {@code tandem-pod-<uid>}: found again by the pod uid after any crash
 * @param comment {@code tandem.dev/pod-uid=<uid> pod=<namespace>/<name>} (a gang: {@code
 *     group=<namespace>/<group>}): the same tag again, then whose job it is for {@code sacct} and
 *     {@code squeue}; a job counts as the pod's only when name and the comment's tag agree
 *     (docs/slurm-client.md, "Placeholder jobs")
 * @param podUid the pod uid
 * @param nodes node count (1 for a single pod, N for a gang of N)
 * @param cpusPerNode whole CPUs on each node
 * @param memoryMbPerNode memory on each node in Slurm MB (MiB)
 * @param gresPerNode GRES on each node, e.g. {@code gpu:a100:2} (comma-separated if several), or
 *     null
 * @param partition partition, or null for Slurm's default
 * @param qos QOS, or null
 * @param account account, or null
 * @param timeLimitMinutes time limit, or null for the partition's default
 * @param reservation reservation, or null
 * @param exclusivity node sharing
 * @param nice Slurm nice value, or null
 * @param requeue always false: a placeholder that Slurm requeued would run again with no pod to
 *     bind, so Slurm must end it instead (a preempted placeholder then ends as PREEMPTED or
 *     CANCELLED) and Tandem evicts the pod; a new pod gets a new job
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record PlaceholderJob(
    String name,
    String comment,
    String podUid,
    int nodes,
    long cpusPerNode,
    long memoryMbPerNode,
    String gresPerNode,
    String partition,
    String qos,
    String account,
    Long timeLimitMinutes,
    String reservation,
    Exclusivity exclusivity,
    Integer nice,
    boolean requeue) {

  /** Job-name prefix of every placeholder job. */
  public static final String NAME_PREFIX = "tandem-pod-";

  /** Job-comment prefix of every placeholder job. */
  public static final String COMMENT_PREFIX = "tandem.dev/pod-uid=";

  /** The job name of the pod with {@code uid}. */
  public static String nameFor(String uid) {
    return NAME_PREFIX + uid;
  }

  /**
   * The job comment of the job tagged {@code uid}: the tag, then {@code whose} ({@code
   * pod=<namespace>/<name>} or {@code group=<namespace>/<group>}).
   */
  public static String commentFor(String uid, String whose) {
    return COMMENT_PREFIX + uid + " " + whose;
  }
}
