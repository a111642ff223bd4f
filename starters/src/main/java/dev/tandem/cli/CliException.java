package dev.tandem.cli;

/** A failure to report to the user in one line, with exit code 1. */
public class CliException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public CliException(String message) {
    super(message);
  }
}
