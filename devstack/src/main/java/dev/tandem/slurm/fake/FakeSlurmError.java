package dev.tandem.slurm.fake;

/**
 * A refusal the fake slurmrestd answers with, as 25.11 would: the HTTP status and the Slurm error
 * number, short text and description of its {@code errors[]} entry.
 */
final class FakeSlurmError extends RuntimeException {
  final int status;
  final int number;
  final String error;

  FakeSlurmError(int status, int number, String error, String description) {
    super(description);
    this.status = status;
    this.number = number;
    this.error = error;
  }

  /** slurmctld refusals: 25.11 answers them with HTTP 500. */
  static FakeSlurmError refused(int number, String error, String description) {
    return new FakeSlurmError(500, number, error, description);
  }
}
