package dev.tandem.cli;

import dev.tandem.workflows.model.NodeStatus;
import dev.tandem.workflows.model.TimelineEntry;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code tandem history NODE}: the node's timeline of transitions, oldest first. {@code tandem
 * history pod/[NS/]NAME} (or {@code schedule/NS/NAME/UID}): the same for a pod scheduled through
 * Slurm, from its scheduling workflow (see {@link PodHistory}).
 */
@Command(
    name = "history",
    description = {
      "Show a node's timeline: every transition with its time and cause.",
      "For a pod scheduled through Slurm: tandem history pod/[NAMESPACE/]NAME, or the workflow id"
          + " schedule/NAMESPACE/NAME/UID."
    },
    mixinStandardHelpOptions = true)
final class HistoryCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin TemporalOptions temporal;

  @Mixin NodeTargetOptions target;

  @Option(
      names = {"-o", "--output"},
      defaultValue = "table",
      description = "table or json (default ${DEFAULT-VALUE})")
  Output.Format output;

  @Option(
      names = "--kubeconfig",
      defaultValue = "${env:KUBECONFIG}",
      description = "kubeconfig used to find a pod's uid (env KUBECONFIG)")
  String kubeconfig;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    if (PodHistory.isPod(target.node)) {
      return podHistory(out);
    }
    NodeLookup.Target t = target.target();
    TemporalSession session = temporal.connect();
    try {
      session.requireWorker();
      NodeStatus s = NodeLookup.status(session, t);
      if (output == Output.Format.json) {
        out.println(Output.json(s.timeline()));
        return 0;
      }
      out.printf(
          "%s: %s, revision %s%s%n",
          t,
          s.phase().label(),
          s.revision(),
          s.holds().isEmpty() ? "" : ", held by " + String.join(", ", s.holds().keySet()));
      List<List<String>> rows = new ArrayList<>();
      for (TimelineEntry e : s.timeline()) {
        rows.add(
            List.of(
                Output.time(e.at()),
                e.phase() == null ? "" : e.phase().label(),
                e.event(),
                e.detail() == null ? "" : e.detail()));
      }
      out.print(Table.render(List.of("TIME", "PHASE", "EVENT", "DETAIL"), rows));
      return 0;
    } finally {
      session.close();
    }
  }

  private int podHistory(PrintWriter out) {
    PodHistory.Target t;
    try {
      t = PodHistory.parse(target.node, target.k8sNamespace);
    } catch (IllegalArgumentException e) {
      throw new picocli.CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    t = PodHistory.resolve(t, kubeconfig);
    TemporalSession session = temporal.connect();
    try {
      return PodHistory.print(session, t, out, output);
    } finally {
      session.close();
    }
  }
}
