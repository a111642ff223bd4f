package dev.tandem.bench;

import io.temporal.workflow.Workflow;

/** Waits for {@link FloorWorkflow#ENDED}; nothing else. */
public final class FloorWorkflowImpl implements FloorWorkflow {
  private boolean ended;

  @Override
  public void run() {
    Workflow.await(() -> ended);
  }

  @Override
  public void observe(String what) {
    if (ENDED.equals(what)) {
      ended = true;
    }
  }
}
