package dev.tandem.workflows.schedule;

import dev.tandem.workflows.Names;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.time.Duration;

/**
 * What a worker runs of {@link PodScheduleWorkflow}: its workflow method and query. The
 * implementation takes the signals through {@link dev.tandem.workflows.support.SignalInbox}, so
 * that the SDK never decodes (or drops) a payload; senders use {@link PodScheduleWorkflow}.
 */
@WorkflowInterface
public interface PodScheduleRun {
  /**
   * The workflow task timeout its starters set (Temporal's default, stated so that it cannot change
   * under the workflow): a task a crashed worker held is tried again only after it, which is what
   * lets the first task's submit skip the listing ({@code PlaceholderCare}).
   */
  Duration TASK_TIMEOUT = Duration.ofSeconds(10);

  /** Runs until nothing is left to do; returns {@link SchedulePhase#DONE} or INVALID. */
  @WorkflowMethod(name = Names.TYPE_POD_SCHEDULE)
  SchedulePhase run(PodScheduleInput input);

  @QueryMethod(name = Names.QUERY_STATUS)
  PodScheduleStatus status();
}
