package dev.tandem.workflows.remediation;

import dev.tandem.workflows.activities.SlurmActivities;
import dev.tandem.workflows.model.DrainCause;
import dev.tandem.workflows.model.DrainReason;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.support.ActivityStubs;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public class FakeNodeWorkflowImpl implements FakeNodeWorkflow {
  private final List<String> commands = new ArrayList<>();
  private final Map<String, String> holds = new LinkedHashMap<>();
  private boolean dirty;

  @Override
  public void run(String slurmName) {
    SlurmActivities slurm =
        Workflow.newActivityStub(SlurmActivities.class, ActivityStubs.options(null));
    boolean drained = false;
    while (true) {
      Workflow.await(() -> dirty);
      dirty = false;
      if (!holds.isEmpty()) {
        String first = holds.values().iterator().next();
        slurm.drain(slurmName, first);
        drained = true;
      } else if (drained) {
        slurm.undrain(slurmName);
        drained = false;
      }
      if (commands.size() > 1000) {
        return;
      }
    }
  }

  @Override
  public void drain(NodeCommand c) {
    commands.add("drain " + c.owner() + ": " + c.reason());
    DrainCause cause = c.cause().orElseThrow();
    holds.put(c.owner(), DrainReason.format(cause, c.reason()));
    dirty = true;
  }

  @Override
  public void undrain(NodeCommand c) {
    commands.add("undrain " + c.owner() + ": " + c.reason());
    if (holds.remove(c.owner()) != null) {
      dirty = true;
    }
  }

  @Override
  public List<String> commands() {
    return List.copyOf(commands);
  }
}
