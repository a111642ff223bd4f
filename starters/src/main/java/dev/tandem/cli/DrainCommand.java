package dev.tandem.cli;

import dev.tandem.workflows.model.DrainCause;
import dev.tandem.workflows.model.DrainReason;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeStatus;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code tandem drain NODE --reason TEXT}: holds a node out of Slurm service for owner {@code
 * manual}. Sends the same signal as {@code temporal workflow signal --workflow-id node/<ns>/<pod>
 * --name drain --input '{"owner":"manual","reason":"..."}'}.
 */
@Command(
    name = "drain",
    description = "Drain a Slurm node (owner manual): no new jobs; running jobs finish.",
    mixinStandardHelpOptions = true)
final class DrainCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin TemporalOptions temporal;

  @Mixin NodeTargetOptions target;

  @Option(
      names = "--reason",
      required = true,
      description = "why (shown in Slurm as tandem:manual: <reason>)")
  String reason;

  @Option(names = "--wait", description = "wait until the node is drained (no job runs)")
  boolean waitDrained;

  @Option(
      names = "--timeout",
      defaultValue = "10m",
      converter = Durations.Converter.class,
      description = "how long --wait waits (default ${DEFAULT-VALUE})")
  Duration timeout;

  /** What Slurm's reason keeps after {@code tandem:manual: }. */
  static final int MAX_REASON =
      DrainReason.MAX_LENGTH - DrainReason.format(DrainCause.MANUAL, "").length();

  @Override
  public Integer call() throws Exception {
    checkReason();
    PrintWriter out = spec.commandLine().getOut();
    NodeLookup.Target t = target.target();
    NodeCommand command = NodeCommand.of(DrainCause.MANUAL, reason);
    TemporalSession session = temporal.connect();
    try {
      boolean noWorker = session.workers().state() == WorkerPresence.State.GONE;
      if (noWorker) {
        NodeLookup.requireRunning(session, t, "drain");
      } else {
        NodeStatus s = NodeLookup.status(session, t);
        if (s.phase() == NodePhase.DELETED || s.phase() == NodePhase.DELETING) {
          throw new CliException("node " + t + " is " + s.phase().label() + ": nothing to drain");
        }
      }
      session.call(
          () -> {
            NodeLookup.stub(session, t).drain(command);
            return null;
          });
      out.printf(
          "drain requested for %s (owner manual); Slurm reason: %s%n",
          t, DrainReason.format(DrainCause.MANUAL, reason));
      out.flush();
      if (noWorker) {
        return NodeLookup.recordedWithoutWorker(
            session, spec.commandLine().getErr(), waitDrained, "the drain");
      }
      if (waitDrained) {
        Waiter.until(out, session, t, timeout, st -> st.phase() == NodePhase.DRAINED, "drained");
      } else {
        out.printf("follow it with: tandem status %s  or  tandem history %s%n", nodeSetOf(t), t);
      }
      return 0;
    } finally {
      session.close();
    }
  }

  /** A reason Slurm would show otherwise than typed is a wrong command line (exit 2). */
  private void checkReason() {
    String problem = null;
    if (reason.isBlank()) {
      problem = "--reason must say why the node is drained";
    } else if (reason.chars().anyMatch(Character::isISOControl)) {
      problem = "--reason must be one line (no newlines or tabs)";
    } else if (reason.length() > MAX_REASON) {
      problem =
          "--reason is "
              + reason.length()
              + " characters; Slurm's reason keeps "
              + MAX_REASON
              + " after \"tandem:manual: \"";
    }
    if (problem != null) {
      throw new ParameterException(spec.commandLine(), problem);
    }
  }

  private static String nodeSetOf(NodeLookup.Target t) {
    String s = NodeLookup.nodeSetOf(t.pod());
    return s == null ? t.toString() : s;
  }
}
