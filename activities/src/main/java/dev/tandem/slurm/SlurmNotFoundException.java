package dev.tandem.slurm;

/**
 * Slurm does not know the node or job (Slurm errors 2017/2018, or an empty answer where one was
 * expected).
 */
public class SlurmNotFoundException extends SlurmException {
  private static final long serialVersionUID = 1L;

  public SlurmNotFoundException(String message) {
    super(message, null);
  }

  public SlurmNotFoundException(String message, Throwable cause) {
    super(message, cause);
  }

  @Override
  public boolean retryable() {
    return false;
  }
}
