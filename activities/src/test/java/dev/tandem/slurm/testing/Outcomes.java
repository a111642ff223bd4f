package dev.tandem.slurm.testing;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.util.function.Supplier;

/** What a call gave: its value, or how it failed, comparable with {@code equals}. */
public final class Outcomes {
  private Outcomes() {}

  /**
   * How a call failed: the exception's class and message, and its cause's class (and message,
   * unless it is a parser's, whose location counts bytes or chars by the input it was given).
   */
  public record Failure(String type, String message, String cause) {}

  public static Object of(Supplier<?> call) {
    try {
      return call.get();
    } catch (RuntimeException e) {
      Throwable c = e.getCause();
      String cause =
          c == null
              ? null
              : c instanceof JsonProcessingException
                  ? c.getClass().getName()
                  : c.getClass().getName() + ": " + c.getMessage();
      return new Failure(e.getClass().getName(), e.getMessage(), cause);
    }
  }
}
