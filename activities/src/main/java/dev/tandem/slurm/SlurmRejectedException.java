package dev.tandem.slurm;

/**
 * Slurm understood the request and refused it (bad partition, invalid node state change, ...).
 * Carries Slurm's own error number and message; retrying the same request will not help.
 */
public class SlurmRejectedException extends SlurmException {
  private static final long serialVersionUID = 1L;

  private final int errorNumber;
  private final String slurmMessage;

  public SlurmRejectedException(int errorNumber, String slurmMessage, String context) {
    super(context + ": Slurm error " + errorNumber + ": " + slurmMessage, null);
    this.errorNumber = errorNumber;
    this.slurmMessage = slurmMessage;
  }

  /** Slurm's error number (e.g. 2000 invalid partition), or 0 if none was given. */
  public int errorNumber() {
    return errorNumber;
  }

  /** Slurm's own description of the error. */
  public String slurmMessage() {
    return slurmMessage;
  }

  @Override
  public boolean retryable() {
    return false;
  }
}
