package dev.tandem.workers;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.client.ActivityCanceledException;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptorBase;
import io.temporal.common.interceptors.WorkerInterceptorBase;

/**
 * Counts activity executions on this worker as they happen: {@code
 * tandem_activity_started_total{activity}} when an attempt starts and {@code
 * tandem_activity_finished_total{activity,outcome}} when it ends ({@code completed}, {@code
 * failed}, {@code canceled}, or {@code async} when the activity completes later on its own).
 *
 * <p>Why ours and not the SDK's {@code temporal_activity_*}: the SDK reports through a tally scope
 * that flushes every 10 s, so a scrape lags by up to that much. These are Micrometer counters,
 * current in every scrape, which makes them usable as a progress signal (dashboards, and tests that
 * pick a moment in a rollout from how many activities have started). Both count per process: a
 * restarted worker starts again from zero, as Prometheus counters do.
 */
public final class ActivityProgressInterceptor extends WorkerInterceptorBase {
  /** Exported as {@code tandem_activity_started_total}. */
  public static final String STARTED = "tandem.activity.started";

  /** Exported as {@code tandem_activity_finished_total}. */
  public static final String FINISHED = "tandem.activity.finished";

  private final MeterRegistry registry;

  public ActivityProgressInterceptor(MeterRegistry registry) {
    this.registry = registry;
  }

  @Override
  public ActivityInboundCallsInterceptor interceptActivity(ActivityInboundCallsInterceptor next) {
    return new Counting(next);
  }

  private final class Counting extends ActivityInboundCallsInterceptorBase {
    private ActivityExecutionContext context;
    private String activity = "unknown";

    Counting(ActivityInboundCallsInterceptor next) {
      super(next);
    }

    @Override
    public void init(ActivityExecutionContext context) {
      this.context = context;
      this.activity = context.getInfo().getActivityType();
      super.init(context);
    }

    @Override
    public ActivityOutput execute(ActivityInput input) {
      counter(STARTED, "Activity attempts started", "activity", activity).increment();
      String outcome = "failed";
      try {
        ActivityOutput out = super.execute(input);
        outcome = context != null && context.isDoNotCompleteOnReturn() ? "async" : "completed";
        return out;
      } catch (ActivityCanceledException e) {
        outcome = "canceled";
        throw e;
      } finally {
        counter(FINISHED, "Activity attempts finished", "activity", activity, "outcome", outcome)
            .increment();
      }
    }
  }

  private Counter counter(String name, String description, String... tags) {
    return Counter.builder(name).description(description).tags(tags).register(registry);
  }
}
