package dev.tandem.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.schedule.PodGroupStatus;
import dev.tandem.workflows.schedule.PodScheduleStatus;
import io.temporal.api.workflow.v1.WorkflowExecutionInfo;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code tandem pods}: the pods Tandem is scheduling through Slurm, from visibility: the running
 * scheduling workflows of a namespace ({@code PodSchedule}, {@code schedule/<ns>/<pod>/<uid>}; a
 * gang's {@code PodGroup}, {@code schedule-group/<ns>/<group>}, one row per live member), each with
 * what its {@code status} query says: phase, job id, Slurm state, QOS, Slurm node, Kubernetes node,
 * problem. Needs no kubeconfig. A pod whose workflow has ended (done, or invalid) is not listed; a
 * workflow started a moment ago may be missing until visibility has it.
 */
@Command(
    name = "pods",
    description =
        "List pods scheduled through Slurm: schedule phase, job id, Slurm state, nodes, age.",
    mixinStandardHelpOptions = true)
final class PodsCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin TemporalOptions temporal;

  @Option(
      names = {"-n", "-k", "--k8s-namespace"},
      defaultValue = "${env:TANDEM_K8S_NAMESPACE:-default}",
      description = "Kubernetes namespace of the pods (default ${DEFAULT-VALUE})")
  String k8sNamespace;

  @Option(
      names = {"-A", "--all-namespaces"},
      description = "pods of every namespace")
  boolean allNamespaces;

  @Option(
      names = {"-o", "--output"},
      defaultValue = "table",
      description = "table or json (default ${DEFAULT-VALUE})")
  Output.Format output;

  /**
   * One pod: its own workflow's status, or (a gang member) its group's, or a note why neither.
   *
   * @param pod {@code <name>} within {@code namespace}
   * @param group the gang's name, or null
   * @param workflowId the workflow that schedules it (the group's for a member)
   */
  record Row(
      String namespace,
      String pod,
      String uid,
      String group,
      String workflowId,
      PodScheduleStatus status,
      PodGroupStatus groupStatus,
      String note) {

    /** This pod in its group's status, or null. */
    PodGroupStatus.MemberStatus member() {
      if (groupStatus == null || groupStatus.members() == null) {
        return null;
      }
      return groupStatus.members().stream()
          .filter(m -> uid != null && uid.equals(m.uid()))
          .findFirst()
          .orElse(null);
    }

    /** When Tandem started scheduling it: the first entry of its timeline, or null. */
    Instant started() {
      if (status != null && !status.timeline().isEmpty()) {
        return status.timeline().get(0).at();
      }
      if (groupStatus != null && !groupStatus.timeline().isEmpty()) {
        return groupStatus.timeline().get(0).at();
      }
      return null;
    }
  }

  @Override
  public Integer call() {
    if (!allNamespaces && !NodeTargetOptions.DNS_LABEL.matcher(k8sNamespace).matches()) {
      throw new ParameterException(
          spec.commandLine(),
          "'"
              + k8sNamespace
              + "' is not a Kubernetes namespace (lower-case letters, digits and '-', at most"
              + " 63)");
    }
    PrintWriter out = spec.commandLine().getOut();
    try (TemporalSession session = temporal.connect()) {
      session.requireWorker();
      List<Row> rows = new ArrayList<>();
      for (WorkflowExecutionInfo w : session.list(query(allNamespaces ? null : k8sNamespace))) {
        rows.addAll(rows(session, w.getExecution().getWorkflowId()));
      }
      rows.sort(Comparator.comparing(Row::namespace).thenComparing(Row::pod));
      if (output == Output.Format.json) {
        out.println(Output.json(rows.stream().map(PodsCommand::json).toList()));
      } else if (rows.isEmpty()) {
        out.printf(
            "no pod is being scheduled through Slurm %s (no running scheduling workflow)%n",
            allNamespaces ? "in any namespace" : "in namespace " + k8sNamespace);
      } else {
        out.print(render(rows, allNamespaces, Instant.now()));
      }
      return 0;
    }
  }

  /** The running scheduling workflows, of {@code namespace} or (null) of every namespace. */
  static String query(String namespace) {
    String q =
        "WorkflowType IN ('"
            + Names.TYPE_POD_SCHEDULE
            + "', '"
            + Names.TYPE_POD_GROUP
            + "') AND ExecutionStatus = 'Running'";
    if (namespace == null) {
      return q;
    }
    return q
        + " AND (WorkflowId STARTS_WITH 'schedule/"
        + namespace
        + "/' OR WorkflowId STARTS_WITH '"
        + Names.podGroupWorkflowId(namespace, "")
        + "')";
  }

  /**
   * The rows of one workflow: its pod, or a gang's live members; a note when it does not answer.
   */
  static List<Row> rows(TemporalSession session, String workflowId) {
    String[] id = workflowId.split("/", -1);
    boolean gang = id[0].equals("schedule-group");
    try {
      if (gang) {
        Optional<PodGroupStatus> g = PodLookup.groupStatus(session, workflowId);
        return g.map(
                s ->
                    s.members().stream()
                        .filter(PodGroupStatus.MemberStatus::live)
                        .map(
                            m ->
                                new Row(
                                    id[1],
                                    m.pod().substring(m.pod().indexOf('/') + 1),
                                    m.uid(),
                                    id[2],
                                    workflowId,
                                    null,
                                    s,
                                    null))
                        .toList())
            .orElse(List.of());
      }
      return PodLookup.status(session, workflowId)
          .map(s -> List.of(new Row(id[1], id[2], id[3], null, workflowId, s, null, null)))
          .orElse(List.of());
    } catch (CliException e) {
      if (e.getMessage().startsWith("cannot reach Temporal")) {
        throw e;
      }
      String note =
          e instanceof TemporalSession.NoAnswer ? "no answer: " + e.getMessage() : e.getMessage();
      return List.of(
          gang
              ? new Row(id[1], "", null, id[2], workflowId, null, null, note)
              : new Row(id[1], id[2], id[3], null, workflowId, null, null, note));
    }
  }

  static String render(List<Row> rows, boolean withNamespace, Instant now) {
    List<String> headers = new ArrayList<>();
    if (withNamespace) {
      headers.add("NAMESPACE");
    }
    headers.addAll(
        List.of(
            "POD",
            "GROUP",
            "PHASE",
            "JOB",
            "SLURM",
            "QOS",
            "SLURM-NODE",
            "K8S-NODE",
            "AGE",
            "PROBLEM"));
    List<List<String>> cells = new ArrayList<>();
    for (Row r : rows) {
      List<String> c = new ArrayList<>();
      if (withNamespace) {
        c.add(r.namespace());
      }
      PodScheduleStatus s = r.status();
      PodGroupStatus g = r.groupStatus();
      PodGroupStatus.MemberStatus m = r.member();
      c.add(r.pod());
      c.add(r.group());
      if (g != null) {
        c.add("group " + g.phase().label());
        c.add(g.jobId() == 0 ? "" : Long.toString(g.jobId()));
        c.add(g.jobState());
        c.add(qos(g.qos()));
        c.add(m == null ? "" : m.slurmNode());
        c.add(m == null ? "" : m.k8sNode());
      } else {
        c.add(s == null ? "unknown" : s.phase().label());
        c.add(s == null || s.jobId() == 0 ? "" : Long.toString(s.jobId()));
        c.add(s == null ? "" : s.jobState());
        c.add(s == null ? "" : qos(s.qos()));
        c.add(s == null ? "" : s.slurmNode());
        c.add(s == null ? "" : s.k8sNode());
      }
      c.add(age(r.started(), now));
      c.add(problem(r));
      cells.add(c);
    }
    return Table.render(headers, cells);
  }

  /** The QOS the job asks for; {@code default} when it names none (the account's default QOS). */
  static String qos(String asked) {
    return asked == null ? "default" : asked;
  }

  /**
   * What keeps the pod from progressing: the workflow's problem, why it is invalid, or the note.
   */
  static String problem(Row r) {
    PodGroupStatus g = r.groupStatus();
    if (g != null) {
      if (g.problem() != null) {
        return g.problem();
      }
      return g.invalid() == null || g.invalid().isEmpty() ? null : String.join("; ", g.invalid());
    }
    if (r.status() == null) {
      return r.note();
    }
    if (r.status().problem() != null) {
      return r.status().problem();
    }
    return r.status().invalid() == null ? null : String.join("; ", r.status().invalid());
  }

  /** Like kubectl's AGE: the largest unit that says enough. */
  static String age(Instant created, Instant now) {
    if (created == null) {
      return "";
    }
    long s = Math.max(0, Duration.between(created, now).getSeconds());
    if (s < 120) {
      return s + "s";
    }
    if (s < 3 * 3600) {
      return s / 60 + "m";
    }
    if (s < 48 * 3600) {
      return s / 3600 + "h";
    }
    return s / 86400 + "d";
  }

  static ObjectNode json(Row r) {
    ObjectNode o = Output.JSON.createObjectNode();
    o.put("namespace", r.namespace());
    o.put("pod", r.pod());
    o.put("uid", r.uid());
    o.put("group", r.group());
    o.put("started", r.started() == null ? null : r.started().toString());
    o.put("workflowId", r.workflowId());
    o.set("schedule", Output.JSON.valueToTree(r.status()));
    o.set("groupSchedule", Output.JSON.valueToTree(r.groupStatus()));
    o.put("note", r.note());
    return o;
  }
}
