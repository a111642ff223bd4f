package dev.tandem.slurm;

/**
 * slurmrestd or slurmctld cannot be reached or answered in a way that says "try later": connection
 * refused, timeout, a 5xx that is not a known Slurm error, slurmrestd died mid-request.
 */
public class SlurmUnavailableException extends SlurmException {
  private static final long serialVersionUID = 1L;

  public SlurmUnavailableException(String message) {
    super(message, null);
  }

  public SlurmUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }

  @Override
  public boolean retryable() {
    return true;
  }
}
