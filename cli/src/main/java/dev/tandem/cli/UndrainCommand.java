package dev.tandem.cli;

import dev.tandem.workflows.model.DrainCause;
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
import picocli.CommandLine.Spec;

/**
 * {@code tandem undrain NODE}: releases the manual drain. Drains of other owners (a cordon, an
 * update) and an administrator's drain set in Slurm stay; the command says so.
 */
@Command(
    name = "undrain",
    description = "Release a manual drain (other owners' and administrators' drains stay).",
    mixinStandardHelpOptions = true)
final class UndrainCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin TemporalOptions temporal;

  @Mixin NodeTargetOptions target;

  @Option(names = "--reason", defaultValue = "undrained by an operator", description = "why")
  String reason;

  @Option(names = "--wait", description = "wait until the node is back in service")
  boolean waitReady;

  @Option(
      names = "--timeout",
      defaultValue = "10m",
      converter = Durations.Converter.class,
      description = "how long --wait waits (default ${DEFAULT-VALUE})")
  Duration timeout;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    NodeLookup.Target t = target.target();
    NodeCommand command = NodeCommand.of(DrainCause.MANUAL, reason);
    TemporalSession session = temporal.connect();
    try {
      if (session.workers().state() == WorkerPresence.State.GONE) {
        // Nobody can say what the node holds; the undrain is kept and, if there is no manual
        // drain, ignored by the node (its timeline says undrain-ignored).
        NodeLookup.requireRunning(session, t, "undrain");
        signal(session, t, command);
        out.printf(
            "undrain requested for %s (not checked: no worker to ask whether it holds a manual"
                + " drain)%n",
            t);
        out.flush();
        return NodeLookup.recordedWithoutWorker(
            session, spec.commandLine().getErr(), waitReady, "the undrain");
      }
      NodeStatus s = NodeLookup.status(session, t);
      if (!s.holds().containsKey(DrainCause.MANUAL.label())) {
        String held = s.holds().isEmpty() ? "nothing" : String.join(", ", s.holds().keySet());
        throw new CliException(
            t
                + " has no manual drain to release (Tandem holds it for: "
                + held
                + ")"
                + adminNote(s));
      }
      signal(session, t, command);
      s.holds().remove(DrainCause.MANUAL.label());
      out.printf("manual drain released for %s%n", t);
      if (!s.holds().isEmpty()) {
        out.printf("note: %s stays drained for: %s%n", t, String.join(", ", s.holds().keySet()));
      }
      String admin = adminNote(s);
      if (!admin.isEmpty()) {
        out.println("note:" + admin);
      }
      if (waitReady && s.holds().isEmpty()) {
        Waiter.until(out, session, t, timeout, st -> st.phase() == NodePhase.READY, "ready");
      }
      return 0;
    } finally {
      session.close();
    }
  }

  private static void signal(TemporalSession session, NodeLookup.Target t, NodeCommand command) {
    session.call(
        () -> {
          NodeLookup.stub(session, t).undrain(command);
          return null;
        });
  }

  private static String adminNote(NodeStatus s) {
    if (s.slurm() == null || !s.slurm().adminReason()) {
      return "";
    }
    return " Slurm also shows an administrator's "
        + (s.slurm().down() ? "down" : "drain")
        + " ('"
        + s.slurm().reason()
        + "'), which Tandem never lifts: clear it with scontrol update NodeName="
        + s.ref().slurmName()
        + " State=RESUME";
  }
}
