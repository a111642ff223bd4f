package dev.tandem.slurm;

/**
 * The token is missing, bad or expired (HTTP 401, 22.05's HTTP 500 "Unspecified error", 25.11's
 * HTTP 511). Retryable because a refreshed token may fix it.
 */
public class SlurmUnauthorizedException extends SlurmException {
  private static final long serialVersionUID = 1L;

  public SlurmUnauthorizedException(String message) {
    super(message, null);
  }

  public SlurmUnauthorizedException(String message, Throwable cause) {
    super(message, cause);
  }

  @Override
  public boolean retryable() {
    return true;
  }
}
