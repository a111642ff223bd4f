package dev.tandem.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.remediation.BudgetStatus;
import dev.tandem.workflows.remediation.LadderStep;
import dev.tandem.workflows.remediation.RemediationState;
import dev.tandem.workflows.remediation.RemediationTarget;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code tandem remediations}: the nodes in remediation with step, time in step, cause and slot:
 * those the {@code remediation-budget} workflow lists (holding or waiting for a slot, also a held
 * unhealthy drain), then every other running {@code remediation/<node>} (listed from visibility,
 * e.g. still observing), each from its {@code status} query; then the remediations that ended
 * recently. {@code --node X}: one remediation in detail, also one that ended (its outcome).
 */
@Command(
    name = "remediations",
    description = "List nodes in remediation: step, time in step, cause, budget slot.",
    mixinStandardHelpOptions = true)
final class RemediationsCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin TemporalOptions temporal;

  @Option(
      names = "--node",
      paramLabel = "K8S_NODE",
      description = "show this node's remediation only, in detail (also one that ended)")
  String node;

  @Option(
      names = {"-o", "--output"},
      defaultValue = "table",
      description = "table or json (default ${DEFAULT-VALUE})")
  Output.Format output;

  @Override
  public Integer call() {
    if (node != null && !RemediationLookup.validNode(node)) {
      throw new ParameterException(
          spec.commandLine(), "'" + node + "' is not a Kubernetes node name");
    }
    PrintWriter out = spec.commandLine().getOut();
    TemporalSession session = temporal.connect();
    try {
      session.requireWorker();
      Optional<BudgetStatus> budget = RemediationLookup.budget(session);
      Instant now = Instant.now();
      if (node != null) {
        RemediationState s =
            RemediationLookup.state(session, node)
                .orElseThrow(
                    () ->
                        new CliException(
                            "no remediation of node "
                                + node
                                + " (workflow "
                                + Names.remediationWorkflowId(node)
                                + " never ran); start one with tandem remediate "
                                + node
                                + " --reason ..."));
        String slot = RemediationLookup.slot(budget, node);
        if (output == Output.Format.json) {
          ObjectNode o = Output.JSON.valueToTree(s);
          o.put("slot", slot);
          out.println(Output.json(o));
        } else {
          out.print(detail(s, slot, now));
        }
        return 0;
      }
      List<Row> rows = rows(session, budget, RemediationLookup.running(session), now);
      if (output == Output.Format.json) {
        out.println(Output.json(json(rows)));
        return 0;
      }
      out.print(render(rows, budget, now));
      return 0;
    } finally {
      session.close();
    }
  }

  /** A node in remediation, with its remediation's state (null if that cannot be read). */
  record Row(String node, String slot, RemediationState state, String problem) {}

  /**
   * Holders first (in the order they got their slot), then those waiting, in line order, then the
   * other running remediations ({@code running}, in name order).
   */
  static List<Row> rows(
      TemporalSession session, Optional<BudgetStatus> budget, List<String> running, Instant now) {
    Map<String, String> slots = new LinkedHashMap<>();
    budget.ifPresent(
        b -> {
          for (BudgetStatus.Entry e : b.holders()) {
            slots.putIfAbsent(
                e.request().k8sNode(),
                RemediationLookup.slotCell(budget, e.request().k8sNode(), now));
          }
          for (BudgetStatus.Entry e : b.waiting()) {
            slots.putIfAbsent(
                e.request().k8sNode(),
                RemediationLookup.slotCell(budget, e.request().k8sNode(), now));
          }
        });
    for (String n : running) {
      slots.putIfAbsent(n, "-");
    }
    List<Row> rows = new ArrayList<>();
    for (Map.Entry<String, String> e : slots.entrySet()) {
      Optional<RemediationState> s = RemediationLookup.state(session, e.getKey());
      rows.add(
          new Row(
              e.getKey(),
              e.getValue(),
              s.orElse(null),
              s.isEmpty() ? "no workflow " + Names.remediationWorkflowId(e.getKey()) : null));
    }
    return rows;
  }

  static String render(List<Row> rows, Optional<BudgetStatus> budget, Instant now) {
    StringBuilder b = new StringBuilder();
    if (rows.isEmpty()) {
      b.append("no node is in remediation\n");
    } else {
      List<List<String>> table = new ArrayList<>();
      for (Row r : rows) {
        RemediationState s = r.state();
        table.add(
            List.of(
                r.node(),
                s == null ? "unknown" : RemediationLookup.step(s),
                s == null ? "-" : RemediationLookup.age(s.stepSince(), now),
                s == null ? r.problem() : nullToEmpty(s.cause()),
                r.slot()));
      }
      b.append(Table.render(List.of("NODE", "STEP", "IN-STEP", "CAUSE", "SLOT"), table));
    }
    List<BudgetStatus.Entry> recent = budget.map(BudgetStatus::recent).orElse(List.of());
    if (!recent.isEmpty()) {
      b.append("ended recently (tandem remediations --node NODE for more):\n");
      for (BudgetStatus.Entry e : recent) {
        b.append("  ")
            .append(e.request().k8sNode())
            .append("  ")
            .append(Output.time(e.since()))
            .append("  ")
            .append(nullToEmpty(e.note()))
            .append('\n');
      }
    }
    return b.toString();
  }

  static String detail(RemediationState s, String slot, Instant now) {
    StringBuilder b = new StringBuilder();
    b.append(Names.remediationWorkflowId(s.k8sNode()))
        .append(": ")
        .append(RemediationLookup.step(s));
    if (s.step() != null && s.step().terminal()) {
      b.append(" at ").append(Output.time(s.stepSince()));
    } else {
      b.append(" for ")
          .append(RemediationLookup.age(s.stepSince(), now))
          .append(" (since ")
          .append(Output.time(s.stepSince()))
          .append(')');
    }
    b.append('\n');
    line(b, "cause", s.cause());
    line(b, "started", Output.time(s.startedAt()));
    line(b, "outcome", s.outcome());
    RemediationTarget t = s.target();
    if (t != null) {
      line(
          b,
          "slurm nodes",
          t.slurmNodes().isEmpty()
              ? "none"
              : t.slurmNodes().stream()
                  .map(n -> n.namespace() + "/" + n.pod())
                  .collect(Collectors.joining(", ")));
      List<LadderStep> steps = t.policy().steps();
      if (s.rung() >= 0 && s.rung() < steps.size()) {
        line(
            b,
            "rung",
            (s.rung() + 1)
                + " of "
                + steps.size()
                + " ("
                + steps.get(s.rung()).action().label()
                + ")");
      }
    }
    line(b, "last check", s.lastCheck() == null ? null : s.lastCheck().summary());
    line(b, "slot", slot);
    line(b, "triggers", s.triggers().size() + " (tandem history " + s.k8sNode() + " lists them)");
    return b.toString();
  }

  private static void line(StringBuilder b, String label, String value) {
    if (value != null && !value.isBlank()) {
      b.append("  ").append(label).append(": ").append(value.replace('\n', ' ')).append('\n');
    }
  }

  private static ArrayNode json(List<Row> rows) {
    ArrayNode a = Output.JSON.createArrayNode();
    for (Row r : rows) {
      ObjectNode o = a.addObject();
      o.put("node", r.node());
      o.put("slot", r.slot());
      if (r.state() != null) {
        o.put("step", RemediationLookup.step(r.state()));
        o.put("stepSince", r.state().stepSince() == null ? null : r.state().stepSince().toString());
        o.put("cause", r.state().cause());
      } else {
        o.put("problem", r.problem());
      }
    }
    return a;
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
