package dev.tandem.workers;

/** A bad configuration value. The message names the variable, the value and what is expected. */
public class ConfigException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ConfigException(String message) {
    super(message);
  }
}
