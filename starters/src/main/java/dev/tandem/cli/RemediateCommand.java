package dev.tandem.cli;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.DrainCause;
import dev.tandem.workflows.model.DrainReason;
import dev.tandem.workflows.remediation.RemediationInput;
import dev.tandem.workflows.remediation.RemediationState;
import dev.tandem.workflows.remediation.RemediationStep;
import dev.tandem.workflows.remediation.RemediationTrigger;
import dev.tandem.workflows.remediation.TriggerKind;
import io.temporal.client.WorkflowOptions;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code tandem remediate K8S_NODE --reason TEXT}: an operator's trigger. Sends the same as {@code
 * temporal workflow signal-with-start --type Remediation --workflow-id remediation/<node> --signal
 * trigger --signal-input '{"kind":"Operator","detail":"...","source":"<user>"}'}: it starts the
 * node's remediation, or joins the one that runs (docs/remediation.md).
 */
@Command(
    name = "remediate",
    description =
        "Start (or join) the remediation of a Kubernetes node: drain, repair step by step, return"
            + " to service.",
    mixinStandardHelpOptions = true)
final class RemediateCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin TemporalOptions temporal;

  @Parameters(index = "0", paramLabel = "K8S_NODE", description = "Kubernetes node name")
  String node;

  @Option(
      names = "--reason",
      required = true,
      description = "what is wrong (shown in Slurm as tandem:remediation: Operator: <reason>)")
  String reason;

  @Option(names = "--wait", description = "wait until the remediation ends (Recovered: exit 0)")
  boolean waitEnd;

  @Option(
      names = "--timeout",
      defaultValue = "2h",
      converter = Durations.Converter.class,
      description = "how long --wait waits (default ${DEFAULT-VALUE})")
  Duration timeout;

  /** What Slurm's reason keeps after {@code tandem:remediation: Operator: }. */
  static final int MAX_REASON =
      DrainReason.MAX_LENGTH
          - (DrainReason.PREFIX
                  + DrainCause.REMEDIATION.label()
                  + ": "
                  + TriggerKind.OPERATOR.label()
                  + ": ")
              .length();

  @Override
  public Integer call() throws Exception {
    check();
    PrintWriter out = spec.commandLine().getOut();
    String id = Names.remediationWorkflowId(node);
    RemediationTrigger trigger = RemediationTrigger.of(TriggerKind.OPERATOR, reason, source());
    TemporalSession session = temporal.connect();
    try {
      boolean noWorker = session.workers().state() == WorkerPresence.State.GONE;
      session.call(
          () -> {
            session
                .client()
                .newUntypedWorkflowStub(
                    "Remediation",
                    WorkflowOptions.newBuilder()
                        .setWorkflowId(id)
                        .setTaskQueue(Names.TASK_QUEUE)
                        .setStaticSummary("Remediation of node " + node)
                        .build())
                .signalWithStart(
                    Names.SIGNAL_TRIGGER,
                    new Object[] {trigger},
                    new Object[] {new RemediationInput(node, null)});
            return null;
          });
      out.printf(
          "remediation of node %s requested (workflow %s; it starts, or joins the one that"
              + " runs): %s%n",
          node, id, trigger.cause());
      out.flush();
      if (noWorker) {
        return NodeLookup.recordedWithoutWorker(
            session, spec.commandLine().getErr(), waitEnd, "the remediation");
      }
      if (!waitEnd) {
        out.printf(
            "follow it with: tandem remediations --node %s  or  tandem history %s%n", node, node);
        return 0;
      }
      return await(out, session, id);
    } finally {
      session.close();
    }
  }

  /** Polls the state until a terminal step, printing each step; bounded by {@code --timeout}. */
  private int await(PrintWriter out, TemporalSession session, String id)
      throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    String last = null;
    while (true) {
      String line;
      RemediationState s = null;
      try {
        Optional<RemediationState> got = RemediationLookup.state(session, node);
        s = got.orElse(null);
        line = s == null ? "not started yet" : RemediationLookup.step(s);
      } catch (TemporalSession.NoAnswer e) {
        line = "no answer: " + e.getMessage() + " (still waiting)";
      }
      if (!Objects.equals(line, last)) {
        out.printf("  %s: %s%s%n", node, line, s == null ? "" : detail(s));
        out.flush();
        last = line;
      }
      if (s != null && s.step() != null && s.step().terminal()) {
        out.printf("%s ended %s%s%n", id, s.step().label(), outcome(s));
        return s.step() == RemediationStep.RECOVERED ? 0 : 1;
      }
      if (System.nanoTime() > end) {
        throw new CliException(
            "gave up waiting after " + Durations.format(timeout) + ": " + id + " is " + line);
      }
      Thread.sleep(Waiter.POLL.toMillis());
    }
  }

  private static String detail(RemediationState s) {
    if (s.step() == RemediationStep.WAITING_FOR_SLOT || s.lastCheck() == null) {
      return "";
    }
    return " (last check: " + s.lastCheck().summary() + ")";
  }

  private static String outcome(RemediationState s) {
    return s.outcome() == null ? "" : ": " + s.outcome();
  }

  /** Who asks: the user's name, as the timeline shows it. */
  static String source() {
    String user = System.getProperty("user.name");
    return user == null || user.isBlank() ? "tandem-cli" : user;
  }

  /** A node name or reason that cannot be used is a wrong command line (exit 2). */
  private void check() {
    String problem = null;
    if (!RemediationLookup.validNode(node)) {
      problem =
          "'"
              + node
              + "' is not a Kubernetes node name (lower-case letters, digits, '-' and '.', at most"
              + " 253)";
    } else if (reason.isBlank()) {
      problem = "--reason must say what is wrong with the node";
    } else if (reason.chars().anyMatch(Character::isISOControl)) {
      problem = "--reason must be one line (no newlines or tabs)";
    } else if (reason.length() > MAX_REASON) {
      problem =
          "--reason is "
              + reason.length()
              + " characters; Slurm's reason keeps "
              + MAX_REASON
              + " after \"tandem:remediation: Operator: \"";
    }
    if (problem != null) {
      throw new ParameterException(spec.commandLine(), problem);
    }
  }
}
