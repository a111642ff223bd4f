package dev.tandem.workers;

import io.temporal.client.ActivityCanceledException;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptorBase;
import io.temporal.common.interceptors.WorkerInterceptorBase;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.TemporalFailure;
import java.util.Arrays;

/**
 * Activity failures small enough for the Temporal server to store as they are. The server keeps a
 * retrying activity's last failure for the UI, {@code temporal workflow describe} and Tandem's own
 * status, but one over its size limit ({@code limit.activityFailureSize}, a few KB) is stored as
 * "Failure exceeds size limit." with the real one demoted to a cut-down cause, which no view shows.
 * A Java exception with its causes and their stack traces (a Kubernetes client's 503, say) is well
 * over that.
 *
 * <p>So an activity's exception leaves the worker as one {@link ApplicationFailure}: the same type
 * (the exception's class name, which retry policies match) and retryability, details and retry
 * delay of an {@code ApplicationFailure}, a message that names the causes in one line (at most
 * {@value #MAX_MESSAGE} characters), the top {@value #FRAMES} stack frames, and no cause chain. The
 * worker's log still has the whole exception.
 */
public final class CompactActivityFailures extends WorkerInterceptorBase {
  static final int MAX_MESSAGE = 1500;
  static final int FRAMES = 10;
  private static final int CAUSES = 3;

  @Override
  public ActivityInboundCallsInterceptor interceptActivity(ActivityInboundCallsInterceptor next) {
    return new ActivityInboundCallsInterceptorBase(next) {
      @Override
      public ActivityOutput execute(ActivityInput input) {
        try {
          return super.execute(input);
        } catch (ActivityCanceledException e) {
          throw e;
        } catch (RuntimeException e) {
          throw compact(e);
        }
      }
    };
  }

  /**
   * The compact form of {@code e}; other Temporal failures (cancellation, timeouts) as they are.
   */
  static RuntimeException compact(RuntimeException e) {
    Throwable source = unwrap(e);
    ApplicationFailure out;
    if (source instanceof ApplicationFailure a) {
      out =
          ApplicationFailure.newBuilder(a)
              .setMessage(oneLine(a.getOriginalMessage(), a.getCause()))
              .setCause(null)
              .build();
    } else if (source instanceof TemporalFailure) {
      return e;
    } else {
      out =
          ApplicationFailure.newBuilder()
              .setType(source.getClass().getName())
              .setMessage(oneLine(messageOf(source), source.getCause()))
              .build();
    }
    StackTraceElement[] frames = source.getStackTrace();
    out.setStackTrace(Arrays.copyOf(frames, Math.min(FRAMES, frames.length)));
    return out;
  }

  /** The SDK wraps an activity's checked exception in a runtime exception of its own. */
  private static Throwable unwrap(RuntimeException e) {
    return e.getClass().getSimpleName().equals("CheckedExceptionWrapper") && e.getCause() != null
        ? e.getCause()
        : e;
  }

  private static String oneLine(String message, Throwable cause) {
    StringBuilder b = new StringBuilder(message == null ? "" : message);
    for (int i = 0; cause != null && i < CAUSES; i++, cause = cause.getCause()) {
      b.append("; caused by ")
          .append(cause.getClass().getSimpleName())
          .append(": ")
          .append(messageOf(cause));
    }
    String s = b.toString().replace('\n', ' ');
    return s.length() <= MAX_MESSAGE ? s : s.substring(0, MAX_MESSAGE - 1) + "…";
  }

  private static String messageOf(Throwable t) {
    String m =
        t instanceof TemporalFailure f ? f.getOriginalMessage() : (t == null ? "" : t.getMessage());
    return m == null ? t.getClass().getSimpleName() : m;
  }
}
