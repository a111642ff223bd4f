package dev.tandem.cli;

import dev.tandem.k8s.PodLabels;
import dev.tandem.topology.Topology;
import dev.tandem.topology.TopologyConfigMap;
import dev.tandem.topology.TopologyException;
import dev.tandem.topology.TopologyInputs;
import dev.tandem.topology.TopologyRenderer;
import dev.tandem.topology.TopologySpec;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintWriter;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code tandem topology}: the Slurm topology Tandem renders from node labels (docs/topology.md).
 * It prints what the worker published (ConfigMap {@code tandem-topology}) or, when there is none or
 * with {@code --live}, renders it from the cluster's slurmd pods and nodes now, with the labels of
 * {@code --labels} (default: {@code TANDEM_TOPOLOGY}, else the ConfigMap's). The first line, a
 * comment, says where it came from, so the output stays a valid file.
 */
@Command(
    name = "topology",
    description =
        "Print the Slurm topology rendered from Kubernetes node labels (topology.conf or"
            + " topology.yaml).",
    mixinStandardHelpOptions = true)
final class TopologyCommand implements Callable<Integer> {
  enum Format {
    conf,
    yaml
  }

  @Spec CommandSpec spec;

  @Option(
      names = "--format",
      defaultValue = "conf",
      description = "conf (topology.conf) or yaml (topology.yaml, Slurm 25.05+); default conf")
  Format format;

  @Option(
      names = {"-n", "-k", "--k8s-namespace"},
      defaultValue = "${env:TANDEM_K8S_NAMESPACE:-default}",
      description =
          "namespace of the worker and its ConfigMap tandem-topology (default ${DEFAULT-VALUE})")
  String namespace;

  @Option(
      names = "--labels",
      defaultValue = "${env:TANDEM_TOPOLOGY}",
      description =
          "labels to render with, as TANDEM_TOPOLOGY (tree:<top>,...,<leaf> or block:<label>);"
              + " default: env TANDEM_TOPOLOGY, else the ConfigMap's")
  String labels;

  @Option(
      names = "--live",
      description = "render from the cluster now, even if the ConfigMap exists")
  boolean live;

  @Option(
      names = "--kubeconfig",
      defaultValue = "${env:KUBECONFIG}",
      description = "kubeconfig (env KUBECONFIG)")
  String kubeconfig;

  @Override
  public Integer call() {
    if (!NodeTargetOptions.DNS_LABEL.matcher(namespace).matches()) {
      throw new ParameterException(
          spec.commandLine(), "'" + namespace + "' is not a Kubernetes namespace");
    }
    TopologySpec asked;
    try {
      asked = TopologySpec.parse(labels);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--labels: " + e.getMessage());
    }
    PrintWriter out = spec.commandLine().getOut();
    try (KubernetesClient k8s = PodLookup.kubernetes(kubeconfig)) {
      ConfigMap cm = read(k8s);
      String published = cm == null ? null : annotation(cm);
      if (cm != null && !live && (!asked.enabled() || asked.toString().equals(published))) {
        Map<String, String> data = cm.getData() == null ? Map.of() : cm.getData();
        out.println(
            "# from ConfigMap "
                + namespace
                + "/"
                + TopologyConfigMap.NAME
                + " (labels "
                + published
                + ", published by the worker)");
        out.print(data.getOrDefault(key(), ""));
        return 0;
      }
      TopologySpec use = asked.enabled() ? asked : parsePublished(published);
      if (!use.enabled()) {
        throw new CliException(
            "no ConfigMap "
                + namespace
                + "/"
                + TopologyConfigMap.NAME
                + " and no labels to render with: set --labels or TANDEM_TOPOLOGY (e.g."
                + " tree:topology.tandem.dev/spine,topology.tandem.dev/leaf)");
      }
      Topology t = render(k8s, use);
      out.println(
          "# rendered now from the cluster's nodes (labels "
              + use
              + (cm == null ? "; no ConfigMap published yet)" : "; the ConfigMap may differ)"));
      out.print(format == Format.yaml ? t.yaml() : t.conf());
      return 0;
    } catch (CliException | ParameterException e) {
      throw e;
    } catch (TopologyException e) {
      throw new CliException("the node labels contradict each other: " + e.getMessage());
    } catch (RuntimeException e) {
      throw new CliException(
          "cannot read the topology from Kubernetes ("
              + e.getMessage()
              + "): check --kubeconfig/KUBECONFIG");
    }
  }

  private String key() {
    return format == Format.yaml ? TopologyConfigMap.YAML : TopologyConfigMap.CONF;
  }

  private ConfigMap read(KubernetesClient k8s) {
    return k8s.configMaps().inNamespace(namespace).withName(TopologyConfigMap.NAME).get();
  }

  private static String annotation(ConfigMap cm) {
    Map<String, String> a = cm.getMetadata().getAnnotations();
    return a == null ? null : a.get(TopologyConfigMap.SPEC_ANNOTATION);
  }

  private static TopologySpec parsePublished(String published) {
    try {
      return TopologySpec.parse(published);
    } catch (IllegalArgumentException e) {
      return TopologySpec.OFF;
    }
  }

  private static Topology render(KubernetesClient k8s, TopologySpec use) {
    Map<String, Node> nodes =
        k8s.nodes().list().getItems().stream()
            .collect(Collectors.toMap(n -> n.getMetadata().getName(), Function.identity()));
    var pods = k8s.pods().inAnyNamespace().withLabel(PodLabels.NODESET).list().getItems();
    return TopologyRenderer.render(use, TopologyInputs.of(pods, nodes::get));
  }
}
