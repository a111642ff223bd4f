package dev.tandem.workflows.support;

import dev.tandem.workflows.activities.KubeActivities;
import dev.tandem.workflows.activities.RemediationActivities;
import dev.tandem.workflows.activities.SchedulingActivities;
import dev.tandem.workflows.activities.SlurmActivities;
import io.temporal.activity.ActivityOptions;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;

/**
 * Activity options shared by Tandem's workflows.
 *
 * <p>Retries are unlimited in count but bounded in time (two minutes): a Slurm or Kubernetes outage
 * then surfaces as a failed activity the workflow records as a problem (visible in its status and
 * on the NodeSet) before it tries again on its next poll, instead of hiding inside an endless retry
 * loop. Refusals that retrying cannot fix ({@code KubeRejected}, {@code SlurmRejected}) are not
 * retried at all.
 */
public final class ActivityStubs {
  private ActivityStubs() {}

  static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);
  static final Duration GIVE_UP_AFTER = Duration.ofMinutes(2);

  public static ActivityOptions options(String summary, String... doNotRetry) {
    ActivityOptions.Builder b =
        ActivityOptions.newBuilder()
            .setStartToCloseTimeout(CALL_TIMEOUT)
            .setScheduleToCloseTimeout(GIVE_UP_AFTER)
            .setRetryOptions(retry(doNotRetry));
    if (summary != null) {
      b.setSummary(summary);
    }
    return b.build();
  }

  /** A Kubernetes activity stub whose calls show {@code summary} in the Temporal UI. */
  public static KubeActivities kube(String summary) {
    return Workflow.newActivityStub(
        KubeActivities.class, options(summary, KubeActivities.REJECTED));
  }

  /** A Slurm activity stub whose calls show {@code summary} in the Temporal UI. */
  public static SlurmActivities slurm(String summary) {
    return Workflow.newActivityStub(
        SlurmActivities.class, options(summary, SlurmActivities.REJECTED));
  }

  /**
   * A Kubernetes activity stub; its calls run as local activities when {@code local} (see {@link
   * #scheduling(String)} for why and how), else as {@link #kube(String)}'s.
   */
  public static KubeActivities kube(String summary, boolean local) {
    return local
        ? nodeLocalStub(KubeActivities.class, summary, KubeActivities.REJECTED)
        : kube(summary);
  }

  /** A Slurm activity stub; local activities when {@code local}, else {@link #slurm(String)}'s. */
  public static SlurmActivities slurm(String summary, boolean local) {
    return local
        ? nodeLocalStub(SlurmActivities.class, summary, SlurmActivities.REJECTED)
        : slurm(summary);
  }

  /**
   * Attempts of a node workflow's local activity: three, within the first 3 s (1 s, then 2 s
   * apart), all inside the workflow task. A call still failing then goes on as a regular activity
   * (the node workflow's {@code NodeEffects}), so a longer outage shows in the Temporal UI as a
   * pending activity retrying, as before, and is bounded in workflow time by {@link
   * #GIVE_UP_AFTER}.
   */
  static final int NODE_LOCAL_ATTEMPTS = 3;

  private static <T> T nodeLocalStub(Class<T> type, String summary, String... doNotRetry) {
    return localStub(
        type,
        summary,
        RetryOptions.newBuilder(retry(doNotRetry)).setMaximumAttempts(NODE_LOCAL_ATTEMPTS).build());
  }

  /**
   * A Kubernetes activity stub whose calls are regular activities that give up after {@link
   * #NODE_LOCAL_ATTEMPTS} attempts (1 s, then 2 s apart), for a write a later pass makes again
   * anyway with what is current then (the NodeSet's status, written off the loop).
   */
  public static KubeActivities kubeFewAttempts(String summary) {
    ActivityOptions o = options(summary, KubeActivities.REJECTED);
    return Workflow.newActivityStub(
        KubeActivities.class,
        ActivityOptions.newBuilder(o)
            .setRetryOptions(
                RetryOptions.newBuilder(o.getRetryOptions())
                    .setMaximumAttempts(NODE_LOCAL_ATTEMPTS)
                    .build())
            .build());
  }

  /** A remediation activity stub whose calls show {@code summary} in the Temporal UI. */
  public static RemediationActivities remediation(String summary) {
    return Workflow.newActivityStub(
        RemediationActivities.class,
        options(summary, KubeActivities.REJECTED, SlurmActivities.REJECTED));
  }

  /**
   * A scheduling activity stub whose calls run as local activities. The scheduling workflows' calls
   * are single short HTTP requests (submit, bind, a condition, an event); as local activities they
   * run inside the workflow task that asks for them, recorded as markers in the history (the
   * Temporal UI shows them as local activities, with the summary), instead of costing a task-queue
   * round trip and another workflow task each (docs/scheduling.md, "Throughput"). Neither side's
   * refusals are retried; a retry longer than a few seconds waits on a workflow timer, so a Slurm
   * outage does not hold the workflow task open.
   */
  public static SchedulingActivities scheduling(String summary) {
    return localStub(
        SchedulingActivities.class,
        summary,
        retry(KubeActivities.REJECTED, SlurmActivities.REJECTED));
  }

  private static <T> T localStub(Class<T> type, String summary, RetryOptions retry) {
    return Workflow.newLocalActivityStub(
        type,
        LocalActivityOptions.newBuilder()
            .setStartToCloseTimeout(CALL_TIMEOUT)
            .setScheduleToCloseTimeout(GIVE_UP_AFTER)
            .setLocalRetryThreshold(Duration.ofSeconds(5))
            .setRetryOptions(retry)
            .setSummary(summary)
            .build());
  }

  /**
   * A refusal: retrying the call cannot help (a non-retryable failure, or one of the types the
   * stubs here do not retry: {@code KubeRejected}, {@code KubePodRejected}, {@code SlurmRejected}).
   */
  public static boolean refused(ActivityFailure e) {
    return e.getCause() instanceof ApplicationFailure af
        && (af.isNonRetryable()
            || KubeActivities.REJECTED.equals(af.getType())
            || KubeActivities.POD_REJECTED.equals(af.getType())
            || SlurmActivities.REJECTED.equals(af.getType()));
  }

  private static RetryOptions retry(String... doNotRetry) {
    return RetryOptions.newBuilder()
        .setInitialInterval(Duration.ofSeconds(1))
        .setBackoffCoefficient(2.0)
        .setMaximumInterval(Duration.ofSeconds(20))
        .setDoNotRetry(doNotRetry)
        .build();
  }
}
