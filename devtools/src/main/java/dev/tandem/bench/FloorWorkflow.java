package dev.tandem.bench;

import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * The bench's stand-in for a pod's scheduling workflow in {@link FloorScheduler}: it records the
 * three things every pod's workflow hears (seen, its job running, the pod gone) and decides
 * nothing. Its cost is what any workflow per pod pays Temporal on this machine (a
 * signal-with-start, two signals, three workflow tasks); Tandem's real workflow adds its decisions
 * and activities.
 */
@WorkflowInterface
public interface FloorWorkflow {
  /** Signals the workflow takes: {@link #SEEN}, {@link #RUNNING}, {@link #ENDED}. */
  String SEEN = "seen";

  String RUNNING = "running";
  String ENDED = "ended";

  @WorkflowMethod
  void run();

  @SignalMethod
  void observe(String what);
}
