package dev.tandem.slurm;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * How Tandem tags the placeholder job that holds Slurm resources for a Kubernetes pod (or a gang),
 * so that the job is found again after any crash with one job listing (docs/slurm-client.md,
 * "Placeholder jobs").
 *
 * <p>The tag is the pod's uid, written twice: the job name {@code tandem-pod-<uid>} (readable in
 * {@code squeue}) and the comment {@code tandem.dev/pod-uid=<uid>}, which may go on after a space
 * with whose job it is ({@code pod=<namespace>/<name>}, shown by {@code sacct} and {@code squeue}).
 * A job counts as tagged only when BOTH carry the same uid: whoever acts on tagged jobs (cancelling
 * orphans) must never touch a job that merely looks like one of ours.
 */
public final class PlaceholderTag {
  /** Job name prefix; the uid follows. */
  public static final String NAME_PREFIX = "tandem-pod-";

  /** Job comment prefix; the uid follows. */
  public static final String COMMENT_PREFIX = "tandem.dev/pod-uid=";

  /**
   * A Kubernetes uid (RFC 4122 text) or any similar key: no spaces, no characters that Slurm's name
   * or comment handling could alter; at most 160 characters (a gang tag of a 63-character namespace
   * and group fits).
   */
  private static final Pattern UID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,159}");

  private PlaceholderTag() {}

  /** The uid, checked; {@link IllegalArgumentException} if it cannot be a tag. */
  public static String checkUid(String uid) {
    if (uid == null || !UID.matcher(uid).matches()) {
      throw new IllegalArgumentException(
          "not a pod uid usable as a Slurm job tag (letters, digits, '.', '_', '-'; at most 160): "
              + uid);
    }
    return uid;
  }

  public static String jobName(String uid) {
    return NAME_PREFIX + checkUid(uid);
  }

  public static String comment(String uid) {
    return COMMENT_PREFIX + checkUid(uid);
  }

  /** The uid the job is tagged with, or empty when it is not a (well-formed) placeholder. */
  public static Optional<String> uidOf(SlurmJob job) {
    return uidOf(job.comment()).filter(uid -> (NAME_PREFIX + uid).equals(job.name()));
  }

  /** The uid a placeholder's comment carries (up to the first space), or empty. */
  public static Optional<String> uidOf(String comment) {
    if (comment == null || !comment.startsWith(COMMENT_PREFIX)) {
      return Optional.empty();
    }
    String rest = comment.substring(COMMENT_PREFIX.length());
    int space = rest.indexOf(' ');
    String uid = space < 0 ? rest : rest.substring(0, space);
    return UID.matcher(uid).matches() ? Optional.of(uid) : Optional.empty();
  }

  /**
   * A placeholder submission for {@code uid}: tagged, sleeping until killed ({@link
   * JobSubmission#POD_PLACEHOLDER_SCRIPT}: it outlives SIGTERM by {@code KillWait}), output to
   * /dev/null, and never requeued by Slurm: a preempted or failed placeholder ends (PREEMPTED,
   * NODE_FAIL, ...) and the pod is evicted, rather than the job coming back RUNNING on another node
   * under a pod that is still bound to the old one. Callers add the sizing, partition and the rest.
   */
  public static JobSubmission.Builder submission(String uid) {
    return JobSubmission.builder(jobName(uid))
        .comment(comment(uid))
        .noRequeue(true)
        .script(JobSubmission.POD_PLACEHOLDER_SCRIPT);
  }
}
