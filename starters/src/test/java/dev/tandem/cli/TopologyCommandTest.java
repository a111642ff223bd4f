package dev.tandem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.devstack.kube.LocalKubernetes;
import dev.tandem.devstack.kube.SharedKubernetes;
import dev.tandem.devstack.kube.TestNamespace;
import dev.tandem.topology.TopologyConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code tandem topology} against the JVM's real control plane: published, rendered live, refused.
 * The command reads the pods of every namespace: no other test of this module creates a pod
 * labelled {@code tandem.dev/nodeset}. The class's Nodes have unique names and are deleted after
 * it.
 */
class TopologyCommandTest {
  static final String TREE = "tree:topology.tandem.dev/spine,topology.tandem.dev/leaf";
  static KubernetesClient k8s;
  static TestNamespace namespace;
  static String ns;
  static Path kubeconfig;
  static String k1;
  static String k2;

  @BeforeAll
  static void start() throws Exception {
    LocalKubernetes kube = SharedKubernetes.get();
    k8s = kube.adminClient();
    kubeconfig = kube.kubeconfig();
    namespace = TestNamespace.create(k8s, "topology");
    ns = namespace.name();
    String suffix = ns.substring(ns.lastIndexOf('-'));
    k1 = "k1" + suffix;
    k2 = "k2" + suffix;
    node(k1, "s1", "l1");
    node(k2, "s1", "l2");
    pod("gpu-0", k1);
    pod("gpu-1", k2);
  }

  @AfterAll
  static void stop() {
    if (k8s != null) {
      namespace.close();
      k8s.nodes().withName(k1).delete();
      k8s.nodes().withName(k2).delete();
      k8s.close();
    }
  }

  @AfterEach
  void unpublish() {
    k8s.configMaps().inNamespace(ns).withName(TopologyConfigMap.NAME).delete();
  }

  static void node(String name, String spine, String leaf) {
    k8s.nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(
                    Map.of("topology.tandem.dev/spine", spine, "topology.tandem.dev/leaf", leaf))
                .endMetadata()
                .build())
        .create();
  }

  static void pod(String name, String node) {
    k8s.pods()
        .inNamespace(ns)
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .addToLabels("tandem.dev/nodeset", "gpu")
                .endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .addNewContainer()
                .withName("slurmd")
                .withImage("slurmd")
                .endContainer()
                .endSpec()
                .build())
        .create();
  }

  CliRun run(String... args) {
    return CliRun.of(CliRun.concat(args, "-n", ns, "--kubeconfig", kubeconfig.toString()));
  }

  @Test
  void withoutAConfigMapItRendersFromTheClusterWithTheLabelsGiven() {
    CliRun r = run("topology", "--labels", TREE);
    assertEquals(0, r.code(), r.toString());
    assertEquals(
        "# rendered now from the cluster's nodes (labels "
            + TREE
            + "; no ConfigMap published yet)\n"
            + "# Rendered by Tandem from Kubernetes node labels ("
            + TREE
            + "); do not edit: see Tandem's docs/topology.md.\n"
            + "SwitchName=l1 Nodes=gpu-0\n"
            + "SwitchName=l2 Nodes=gpu-1\n"
            + "SwitchName=s1 Switches=l1,l2\n",
        r.out());
    CliRun yaml = run("topology", "--labels", TREE, "--format", "yaml");
    assertEquals(0, yaml.code(), yaml.toString());
    assertTrue(yaml.out().contains("  tree:\n    switches:\n      - switch: l1\n"), yaml.out());
  }

  @Test
  void aPublishedConfigMapIsPrintedAsIs() {
    k8s.configMaps()
        .inNamespace(ns)
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName(TopologyConfigMap.NAME)
                .withAnnotations(Map.of(TopologyConfigMap.SPEC_ANNOTATION, TREE))
                .endMetadata()
                .withData(Map.of("topology.conf", "SwitchName=x Nodes=a\n", "topology.yaml", "y\n"))
                .build())
        .create();
    CliRun r = run("topology");
    assertEquals(0, r.code(), r.toString());
    assertEquals(
        "# from ConfigMap "
            + ns
            + "/tandem-topology (labels "
            + TREE
            + ", published by the worker)\n"
            + "SwitchName=x Nodes=a\n",
        r.out());
    assertEquals("y\n", run("topology", "--format", "yaml").out().split("\n", 2)[1]);
    // --live renders now with the ConfigMap's labels.
    CliRun live = run("topology", "--live");
    assertEquals(0, live.code(), live.toString());
    assertTrue(live.out().contains("SwitchName=s1 Switches=l1,l2\n"), live.out());
    assertTrue(live.out().startsWith("# rendered now"), live.out());
  }

  @Test
  void nothingToRenderWithSaysWhatToSet() {
    CliRun r = run("topology");
    assertEquals(1, r.code(), r.toString());
    assertTrue(r.err().contains("set --labels or TANDEM_TOPOLOGY"), r.err());
  }

  @Test
  void badLabelsAreACommandLineError() {
    CliRun r = run("topology", "--labels", "mesh:x");
    assertEquals(2, r.code(), r.toString());
    assertTrue(r.err().contains("it must start with tree: or block:"), r.err());
  }
}
