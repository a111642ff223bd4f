package dev.tandem.bench;

import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionResponse;
import io.temporal.client.WorkflowClient;
import java.util.Collection;

/**
 * The longest workflow history seen, for benchmarks (issue 14: continue-as-new must keep every
 * long-lived workflow's history bounded, and {@code tandem bench fleet} reports the largest). A
 * history shrinks when its workflow continues as new, so sample during the run ({@link #sample})
 * and read the largest at the end ({@link #largest}), after {@link #sampleContinued} has taken in
 * the runs that ended. One {@code DescribeWorkflowExecution} per workflow per sample; a workflow
 * that cannot be described (not started yet, or gone) is skipped.
 */
public final class HistoryLengths {
  /** The longest history: which workflow (and run), and its number of events. */
  public record Longest(String workflowId, String runId, long events) {}

  private final WorkflowClient client;
  private Longest largest = new Longest(null, null, 0);

  public HistoryLengths(WorkflowClient client) {
    this.client = client;
  }

  /** Describes the current run of each workflow; returns the longest history of this sample. */
  public synchronized Longest sample(Collection<String> workflowIds) {
    Longest now = new Longest(null, null, 0);
    for (String id : workflowIds) {
      DescribeWorkflowExecutionResponse d;
      try {
        d =
            client
                .getWorkflowServiceStubs()
                .blockingStub()
                .describeWorkflowExecution(
                    DescribeWorkflowExecutionRequest.newBuilder()
                        .setNamespace(client.getOptions().getNamespace())
                        .setExecution(WorkflowExecution.newBuilder().setWorkflowId(id))
                        .build());
      } catch (RuntimeException e) {
        continue; // not started yet, or gone: nothing to measure
      }
      long events = d.getWorkflowExecutionInfo().getHistoryLength();
      if (events > now.events()) {
        now = new Longest(id, d.getWorkflowExecutionInfo().getExecution().getRunId(), events);
      }
    }
    if (now.events() > largest.events()) {
      largest = now;
    }
    return now;
  }

  /**
   * Takes in the runs that ended by continuing as new, which a sample of current runs never sees at
   * their longest: visibility keeps each run's final length. Bounded: at most {@code limit} runs.
   */
  public synchronized Longest sampleContinued(int limit) {
    Longest now = new Longest(null, null, 0);
    try (var runs = client.listExecutions("ExecutionStatus = 'ContinuedAsNew'")) {
      for (var run :
          (Iterable<io.temporal.client.WorkflowExecutionMetadata>) runs.limit(limit)::iterator) {
        if (run.getHistoryLength() > now.events()) {
          now =
              new Longest(
                  run.getExecution().getWorkflowId(),
                  run.getExecution().getRunId(),
                  run.getHistoryLength());
        }
      }
    }
    if (now.events() > largest.events()) {
      largest = now;
    }
    return now;
  }

  /** The longest history any sample saw. */
  public synchronized Longest largest() {
    return largest;
  }
}
