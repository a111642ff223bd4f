package dev.tandem.activities;

import dev.tandem.slurm.SlurmException;
import dev.tandem.slurm.SlurmNotFoundException;
import dev.tandem.slurm.SlurmRejectedException;
import dev.tandem.slurm.SlurmUnauthorizedException;
import dev.tandem.slurm.SlurmUnsupportedException;
import dev.tandem.workflows.activities.SlurmActivities;
import io.temporal.failure.ApplicationFailure;

/**
 * Slurm client errors to activity failures: what retrying cannot fix (unknown node, refusal,
 * unsupported) is a non-retryable {@link SlurmActivities#REJECTED} with Slurm's message; an
 * unavailable slurmrestd or a bad token is retryable (a refreshed token may fix it).
 */
final class SlurmFailures {
  private SlurmFailures() {}

  static final String UNAVAILABLE = "SlurmUnavailable";
  static final String UNAUTHORIZED = "SlurmUnauthorized";

  static ApplicationFailure translate(String what, SlurmException e) {
    String message = what + ": " + detail(e);
    if (e instanceof SlurmNotFoundException
        || e instanceof SlurmRejectedException
        || e instanceof SlurmUnsupportedException) {
      return ApplicationFailure.newNonRetryableFailureWithCause(
          message, SlurmActivities.REJECTED, e);
    }
    if (e instanceof SlurmUnauthorizedException) {
      return ApplicationFailure.newFailureWithCause(message, UNAUTHORIZED, e);
    }
    return ApplicationFailure.newFailureWithCause(message, UNAVAILABLE, e);
  }

  /**
   * The end of every refused placeholder's message: what the owner of the pod, or of a gang's pods,
   * does about it.
   */
  static String whatToDo(boolean gang) {
    return gang
        ? "; change the members' requests or tandem.dev/* annotations to what Slurm can give, then"
            + " create the gang's pods again"
        : "; change the pod's requests or tandem.dev/* annotations to what Slurm can give, then"
            + " create the pod again";
  }

  /**
   * Slurm refused a placeholder's submit for good: the workflow shows the message on the pod
   * ({@code InvalidPod}) or on every member of a gang ({@code GroupInvalid}), so it says what was
   * asked and what to do, with Slurm's words first. The client's exception is not attached: its
   * words are all in the message, and an attached cause would be appended to what the pod shows.
   */
  static ApplicationFailure refusedSubmit(String asked, boolean gang, SlurmRejectedException e) {
    String words = e.slurmMessage() == null ? "" : e.slurmMessage().trim();
    // Slurm 22.05's slurmrestd puts the number in front of its words too: "[2014] Requested ...".
    String prefix = "[" + e.errorNumber() + "]";
    if (words.startsWith(prefix)) {
      words = words.substring(prefix.length()).trim();
    }
    String message =
        (words.isEmpty() ? "refused" : words)
            + " (Slurm error "
            + e.errorNumber()
            + "), asking for "
            + asked
            + whatToDo(gang);
    return rejected(message);
  }

  static ApplicationFailure rejected(String message) {
    return ApplicationFailure.newNonRetryableFailure(message, SlurmActivities.REJECTED);
  }

  /** Slurm's own words where the client kept them. */
  private static String detail(SlurmException e) {
    if (e instanceof SlurmRejectedException) {
      SlurmRejectedException r = (SlurmRejectedException) e;
      return "Slurm error " + r.errorNumber() + ": " + r.slurmMessage();
    }
    return e.getMessage();
  }
}
