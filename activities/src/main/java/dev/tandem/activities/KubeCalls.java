package dev.tandem.activities;

import dev.tandem.workflows.activities.KubeActivities;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.temporal.failure.ApplicationFailure;
import java.util.Set;
import java.util.function.Supplier;

/**
 * How Kubernetes errors become activity outcomes: 409 retried a bounded number of times here;
 * refusals that retrying cannot fix become non-retryable {@link KubeActivities#REJECTED} failures
 * carrying the API server's message; everything else (5xx, 429, timeouts, connection errors) stays
 * retryable so Temporal tries again.
 */
final class KubeCalls {
  private KubeCalls() {}

  /** Attempts for an operation that keeps meeting 409 Conflict before giving up (retryably). */
  static final int MAX_CONFLICT_ATTEMPTS = 5;

  /** Failure type of errors Temporal should retry. */
  static final String UNAVAILABLE = "KubeUnavailable";

  /**
   * 400 bad request, 403 forbidden, 405/415 (the API cannot do this at all), 422 invalid: the same
   * request will be refused again.
   */
  private static final Set<Integer> REJECTED_CODES = Set.of(400, 403, 405, 415, 422);

  static boolean is(KubernetesClientException e, int code) {
    return e.getCode() == code;
  }

  /** Runs {@code op}; retries it on 409 (it must re-read what it depends on); translates errors. */
  static <T> T withConflictRetry(String what, Supplier<T> op) {
    for (int attempt = 1; ; attempt++) {
      try {
        return op.get();
      } catch (KubernetesClientException e) {
        if (!is(e, 409) || attempt >= MAX_CONFLICT_ATTEMPTS) {
          throw translate(what, e);
        }
        backoff(attempt);
      }
    }
  }

  /** Runs {@code op} once and translates its errors. */
  static <T> T call(String what, Supplier<T> op) {
    try {
      return op.get();
    } catch (KubernetesClientException e) {
      throw translate(what, e);
    }
  }

  static ApplicationFailure translate(String what, KubernetesClientException e) {
    String message = what + ": " + apiMessage(e);
    if (REJECTED_CODES.contains(e.getCode())) {
      return ApplicationFailure.newNonRetryableFailureWithCause(
          message, KubeActivities.REJECTED, e);
    }
    return ApplicationFailure.newFailureWithCause(message, UNAVAILABLE, e);
  }

  static ApplicationFailure rejected(String message) {
    return ApplicationFailure.newNonRetryableFailure(message, KubeActivities.REJECTED);
  }

  /** The API server's own words when there are any, else the client's. */
  static String apiMessage(KubernetesClientException e) {
    String m = e.getStatus() != null ? e.getStatus().getMessage() : null;
    if (m == null || m.isBlank()) {
      m = e.getMessage();
    }
    return (e.getCode() > 0 ? "HTTP " + e.getCode() + ": " : "") + m;
  }

  private static void backoff(int attempt) {
    try {
      // 25, 50, 100, 200 ms: a conflicting writer usually finishes within one of these.
      Thread.sleep(25L << (attempt - 1));
    } catch (InterruptedException ie) {
      Thread.currentThread().interrupt();
      throw ApplicationFailure.newFailure("interrupted while retrying a conflict", UNAVAILABLE);
    }
  }
}
