package dev.tandem.devstack.temporal;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityOptions;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A small workflow for worker-restart tests: each signalled item is processed by an activity that
 * says which worker ran it; a query lists what is done. Ends on the item {@code stop}.
 */
@WorkflowInterface
public interface ProbeWorkflow {
  @WorkflowMethod
  void run();

  @SignalMethod
  void add(String item);

  @QueryMethod
  List<String> done();

  @ActivityInterface
  interface Activities {
    /** {@code item@worker}. */
    String process(String item);
  }

  class Impl implements ProbeWorkflow {
    private final List<String> pending = new ArrayList<>();
    private final List<String> done = new ArrayList<>();
    private final Activities activities =
        Workflow.newActivityStub(
            Activities.class,
            ActivityOptions.newBuilder().setStartToCloseTimeout(Duration.ofSeconds(10)).build());

    @Override
    public void run() {
      while (true) {
        Workflow.await(() -> !pending.isEmpty());
        String item = pending.remove(0);
        if (item.equals("stop")) {
          return;
        }
        done.add(activities.process(item));
      }
    }

    @Override
    public void add(String item) {
      pending.add(item);
    }

    @Override
    public List<String> done() {
      return List.copyOf(done);
    }
  }
}
