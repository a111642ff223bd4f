package dev.tandem.slurm;

/**
 * The operation is not possible with this API version or for this kind of node (e.g. removing a
 * node declared in slurm.conf).
 */
public class SlurmUnsupportedException extends SlurmException {
  private static final long serialVersionUID = 1L;

  public SlurmUnsupportedException(String message) {
    super(message, null);
  }

  public SlurmUnsupportedException(String message, Throwable cause) {
    super(message, cause);
  }

  @Override
  public boolean retryable() {
    return false;
  }
}
