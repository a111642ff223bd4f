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
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code tandem undrain NODE}: releases the manual drain (or, with {@code --owner remediation}, the
 * drain a remediation that ended Failed left behind: docs/remediation.md, runbook). Drains of other
 * owners (a cordon, an update) and an administrator's drain set in Slurm stay; the command says so.
 */
@Command(
    name = "undrain",
    description =
        "Release a manual drain, or a failed remediation's (other owners' and administrators'"
            + " drains stay).",
    mixinStandardHelpOptions = true)
final class UndrainCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin TemporalOptions temporal;

  @Mixin NodeTargetOptions target;

  @Option(names = "--reason", defaultValue = "undrained by an operator", description = "why")
  String reason;

  @Option(
      names = "--owner",
      defaultValue = "manual",
      description =
          "whose drain to release: manual (default) or remediation (after a remediation ended"
              + " Failed and the machine was repaired by hand)")
  String owner;

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
    DrainCause cause;
    try {
      cause = liftable(owner);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    NodeCommand command = NodeCommand.of(cause, reason);
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
      if (!s.holds().containsKey(cause.label())) {
        String held = s.holds().isEmpty() ? "nothing" : String.join(", ", s.holds().keySet());
        throw new CliException(
            t
                + " has no "
                + cause.label()
                + " drain to release (Tandem holds it for: "
                + held
                + ")"
                + adminNote(s));
      }
      signal(session, t, command);
      s.holds().remove(cause.label());
      out.printf("%s drain released for %s%n", cause.label(), t);
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

  /**
   * The owners a human may release; the others are lifted by what set them.
   *
   * @throws IllegalArgumentException saying why {@code owner} is not one
   */
  static DrainCause liftable(String owner) {
    DrainCause c =
        DrainCause.fromLabel(owner)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "--owner must be manual or remediation, got '" + owner + "'"));
    return switch (c) {
      case MANUAL, REMEDIATION -> c;
      case K8S_CORDON ->
          throw new IllegalArgumentException(
              "--owner k8s-cordon: that drain is lifted by uncordoning the Kubernetes node");
      case K8S_UNHEALTHY ->
          throw new IllegalArgumentException(
              "--owner k8s-unhealthy: that drain is lifted when the node's condition recovers");
      default ->
          throw new IllegalArgumentException(
              "--owner " + c.label() + ": that drain is Tandem's own, lifted when its step ends");
    };
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
