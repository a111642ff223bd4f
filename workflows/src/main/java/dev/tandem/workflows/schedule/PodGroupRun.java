package dev.tandem.workflows.schedule;

import dev.tandem.workflows.Names;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * What a worker runs of {@link PodGroupWorkflow}: its workflow method and query. The implementation
 * takes the signals through {@link dev.tandem.workflows.support.SignalInbox}, so that the SDK never
 * decodes (or drops) a payload; senders use {@link PodGroupWorkflow}.
 */
@WorkflowInterface
public interface PodGroupRun {
  /** Runs until nothing is left to do; returns {@link GroupPhase#DONE}. */
  @WorkflowMethod(name = Names.TYPE_POD_GROUP)
  GroupPhase run(PodGroupInput input);

  @QueryMethod(name = Names.QUERY_STATUS)
  PodGroupStatus status();
}
