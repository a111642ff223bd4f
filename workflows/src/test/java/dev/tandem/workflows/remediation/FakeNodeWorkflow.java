package dev.tandem.workflows.remediation;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodeCommand;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.List;

/**
 * A stand-in for the node workflow ({@code NodeLifecycle}, id {@code node/<ns>/<pod>}) that takes
 * the remediation's drain and undrain signals, holds drains per owner as the real one does, and
 * drains/undrains the Slurm node through the Slurm activities.
 */
@WorkflowInterface
public interface FakeNodeWorkflow {
  @WorkflowMethod(name = "NodeLifecycle")
  void run(String slurmName);

  @SignalMethod(name = Names.SIGNAL_DRAIN)
  void drain(NodeCommand c);

  @SignalMethod(name = Names.SIGNAL_UNDRAIN)
  void undrain(NodeCommand c);

  /** Every command received, as {@code drain <owner>: <reason>} / {@code undrain <owner>: ...}. */
  @QueryMethod(name = "commands")
  List<String> commands();
}
