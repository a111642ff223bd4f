package dev.tandem.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.schedule.PodGroupStatus;
import dev.tandem.workflows.schedule.PodScheduleStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
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
 * {@code tandem pods}: the pods with {@code spec.schedulerName: tandem-slurm} (listed from
 * Kubernetes with a field selector), each with what its scheduling workflow says: phase, job id,
 * Slurm state, Slurm node, Kubernetes node, problem. A pod whose workflow does not exist (not yet
 * seen by the watcher, or in a gang's workflow) says so instead of failing the listing.
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

  @Option(
      names = "--kubeconfig",
      defaultValue = "${env:KUBECONFIG}",
      description = "kubeconfig used to list the pods (env KUBECONFIG)")
  String kubeconfig;

  /** One pod: its own workflow's status, or (a gang member) its group's, or a note why neither. */
  record Row(PodLookup.PodRef pod, PodScheduleStatus status, PodGroupStatus group, String note) {
    Row(PodLookup.PodRef pod, PodScheduleStatus status, String note) {
      this(pod, status, null, note);
    }

    /** This pod in its group's status, or null. */
    PodGroupStatus.MemberStatus member() {
      if (group == null || group.members() == null) {
        return null;
      }
      return group.members().stream()
          .filter(m -> pod.uid() != null && pod.uid().equals(m.uid()))
          .findFirst()
          .orElse(null);
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
    List<PodLookup.PodRef> pods = listPods();
    PrintWriter out = spec.commandLine().getOut();
    TemporalSession session = temporal.connect();
    try {
      session.requireWorker();
      List<Row> rows = new ArrayList<>();
      for (PodLookup.PodRef p : pods) {
        rows.add(row(session, p));
      }
      if (output == Output.Format.json) {
        out.println(Output.json(rows.stream().map(PodsCommand::json).toList()));
      } else if (rows.isEmpty()) {
        out.printf(
            "no pods with schedulerName %s %s%n",
            Names.SCHEDULER_NAME,
            allNamespaces ? "in any namespace" : "in namespace " + k8sNamespace);
      } else {
        out.print(render(rows, allNamespaces, Instant.now()));
      }
      return 0;
    } finally {
      session.close();
    }
  }

  private List<PodLookup.PodRef> listPods() {
    try (KubernetesClient k8s = PodLookup.kubernetes(kubeconfig)) {
      var op = k8s.pods();
      var selected =
          (allNamespaces ? op.inAnyNamespace() : op.inNamespace(k8sNamespace))
              .withField("spec.schedulerName", Names.SCHEDULER_NAME);
      return selected.list().getItems().stream()
          .map(PodLookup.PodRef::of)
          .sorted(
              Comparator.comparing(PodLookup.PodRef::namespace)
                  .thenComparing(PodLookup.PodRef::name))
          .toList();
    } catch (CliException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new CliException(
          "cannot list pods from Kubernetes ("
              + e.getMessage()
              + "): check --kubeconfig/KUBECONFIG");
    }
  }

  /** The pod's status, or a note saying why there is none; never fails the whole listing. */
  static Row row(TemporalSession session, PodLookup.PodRef p) {
    if (p.uid() == null) {
      return new Row(p, null, "no uid from Kubernetes");
    }
    try {
      if (p.group() != null) {
        // A gang member is scheduled by its group's one workflow, never by its own.
        Optional<PodGroupStatus> g = PodLookup.groupStatus(session, p.groupWorkflowId());
        if (g.isPresent()) {
          return new Row(p, null, g.get(), null);
        }
      }
      Optional<PodScheduleStatus> s = PodLookup.status(session, p.workflowId());
      if (s.isPresent()) {
        return new Row(p, s.get(), null);
      }
      return new Row(p, null, "no workflow (not seen by the Tandem watcher yet?)");
    } catch (TemporalSession.NoAnswer e) {
      return new Row(p, null, "no answer: " + e.getMessage());
    } catch (CliException e) {
      if (e.getMessage().startsWith("cannot reach Temporal")) {
        throw e;
      }
      return new Row(p, null, e.getMessage());
    }
  }

  static String render(List<Row> rows, boolean withNamespace, Instant now) {
    List<String> headers = new ArrayList<>();
    if (withNamespace) {
      headers.add("NAMESPACE");
    }
    headers.addAll(
        List.of(
            "POD", "GROUP", "PHASE", "JOB", "SLURM", "SLURM-NODE", "K8S-NODE", "AGE", "PROBLEM"));
    List<List<String>> cells = new ArrayList<>();
    for (Row r : rows) {
      List<String> c = new ArrayList<>();
      if (withNamespace) {
        c.add(r.pod().namespace());
      }
      PodScheduleStatus s = r.status();
      PodGroupStatus g = r.group();
      PodGroupStatus.MemberStatus m = r.member();
      c.add(r.pod().name());
      c.add(r.pod().group());
      if (g != null) {
        c.add("group " + g.phase().label());
        c.add(g.jobId() == 0 ? "" : Long.toString(g.jobId()));
        c.add(g.jobState());
        c.add(m == null ? "" : m.slurmNode());
        c.add(m == null ? "" : m.k8sNode());
      } else {
        c.add(s == null ? "no workflow" : s.phase().label());
        c.add(s == null || s.jobId() == 0 ? "" : Long.toString(s.jobId()));
        c.add(s == null ? "" : s.jobState());
        c.add(s == null ? "" : s.slurmNode());
        c.add(s == null ? "" : s.k8sNode());
      }
      c.add(age(r.pod().created(), now));
      c.add(problem(r));
      cells.add(c);
    }
    return Table.render(headers, cells);
  }

  /**
   * What keeps the pod from progressing: the workflow's problem, why it is invalid, or the note.
   */
  static String problem(Row r) {
    if (r.group() != null) {
      PodGroupStatus.MemberStatus m = r.member();
      if (r.group().problem() != null) {
        return r.group().problem();
      }
      if (r.group().invalid() != null && !r.group().invalid().isEmpty()) {
        return String.join("; ", r.group().invalid());
      }
      return m == null ? "not a member of " + r.pod().groupWorkflowId() + " yet" : null;
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
    o.put("namespace", r.pod().namespace());
    o.put("pod", r.pod().name());
    o.put("uid", r.pod().uid());
    o.put("group", r.pod().group());
    o.put("created", r.pod().created() == null ? null : r.pod().created().toString());
    o.put("workflowId", r.pod().uid() == null ? null : r.pod().workflowId());
    o.set("schedule", Output.JSON.valueToTree(r.status()));
    o.set("groupSchedule", Output.JSON.valueToTree(r.group()));
    o.put("note", r.note());
    return o;
  }
}
