package dev.tandem.slurm;

/**
 * Base of every error a {@link SlurmClient} throws. Messages never contain the token.
 *
 * <p>The subtypes tell the caller what to do: retry ({@link SlurmUnavailableException}), give up
 * and show Slurm's words ({@link SlurmRejectedException}), treat the object as absent ({@link
 * SlurmNotFoundException}), fix credentials ({@link SlurmUnauthorizedException}), or take another
 * path ({@link SlurmUnsupportedException}).
 */
public abstract class SlurmException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  protected SlurmException(String message, Throwable cause) {
    super(message, cause);
  }

  /** Whether the same call may succeed later without anything else changing. */
  public abstract boolean retryable();
}
