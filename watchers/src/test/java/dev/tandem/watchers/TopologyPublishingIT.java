package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.tandem.devstack.kube.OnConflict;
import dev.tandem.topology.TopologyConfigMap;
import dev.tandem.topology.TopologySpec;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The leader's watchers keep the ConfigMap {@code tandem-topology} current from node labels and
 * slurmd pods, against the real API server with the worker's User-Agent.
 */
@ExtendWith(KubeNamespace.class)
class TopologyPublishingIT {
  static final String SPINE = "topology.tandem.dev/spine";
  static final String LEAF = "topology.tandem.dev/leaf";
  static final String HEADER =
      "# Rendered by Tandem from Kubernetes node labels (tree:"
          + SPINE
          + ","
          + LEAF
          + "); do not edit: see Tandem's docs/topology.md.\n";

  static KubernetesClient admin;
  Replica replica;

  @BeforeEach
  void start() throws Exception {
    replica = new Replica(admin.getConfiguration(), "topo");
    // Read-back every 10 minutes: changes must arrive through the events, not the repair pass.
    topology(Duration.ofMinutes(10));
  }

  void topology(Duration repair) {
    replica.watchers.topology(
        new Watchers.TopologyConfig(
            TopologySpec.parse("tree:" + SPINE + "," + LEAF),
            admin.getNamespace(),
            Duration.ofMillis(200),
            repair));
  }

  @AfterEach
  void stop() {
    replica.close();
  }

  Node node(String name, String spine, String leaf) {
    Node n = K8sObjects.node(name);
    if (spine != null) {
      n.getMetadata().setLabels(Map.of(SPINE, spine, LEAF, leaf));
    }
    return admin.nodes().resource(n).create();
  }

  void pod(String name, String node) {
    admin.pods().resource(K8sObjects.slurmdPod(name, node).build()).create();
  }

  String conf() {
    ConfigMap cm = admin.configMaps().withName(TopologyConfigMap.NAME).get();
    return cm == null || cm.getData() == null ? null : cm.getData().get(TopologyConfigMap.CONF);
  }

  void waitForConf(String want) {
    Wait.until("tandem-topology holds\n" + want, () -> want.equals(conf()));
  }

  @Test
  void theConfigMapFollowsNodesPodsAndLabels() {
    node("k1", "s1", "l1");
    node("k2", "s1", "l2");
    node("k3", null, null);
    pod("gpu-0", "k1");
    pod("gpu-1", "k1");
    pod("gpu-2", "k2");
    pod("gpu-3", null); // not bound: runs no slurmd, not in the topology
    replica.watchers.startWatching();
    waitForConf(
        HEADER
            + "SwitchName=l1 Nodes=gpu-0,gpu-1\n"
            + "SwitchName=l2 Nodes=gpu-2\n"
            + "SwitchName=s1 Switches=l1,l2\n");
    ConfigMap cm = admin.configMaps().withName(TopologyConfigMap.NAME).get();
    assertEquals(
        "tree:" + SPINE + "," + LEAF,
        cm.getMetadata().getAnnotations().get(TopologyConfigMap.SPEC_ANNOTATION));
    assertNotNull(cm.getData().get(TopologyConfigMap.YAML));

    // A node added on an unlabelled Kubernetes node: the catch-all.
    pod("gpu-4", "k3");
    waitForConf(
        HEADER
            + "SwitchName=l1 Nodes=gpu-0,gpu-1\n"
            + "SwitchName=l2 Nodes=gpu-2\n"
            + "SwitchName=s1 Switches=l1,l2\n"
            + "SwitchName=unlabeled Nodes=gpu-4\n");

    // A node removed.
    admin.pods().withName("gpu-2").withGracePeriod(0).delete();
    waitForConf(
        HEADER
            + "SwitchName=l1 Nodes=gpu-0,gpu-1\n"
            + "SwitchName=s1 Switches=l1\n"
            + "SwitchName=unlabeled Nodes=gpu-4\n");
    // A Kubernetes node relabelled into leaf l1 (no pod changes: the node event alone).
    OnConflict.retry(
        () ->
            admin
                .nodes()
                .withName("k3")
                .edit(
                    n -> {
                      n.getMetadata().setLabels(Map.of(SPINE, "s1", LEAF, "l1"));
                      return n;
                    }));
    waitForConf(HEADER + "SwitchName=l1 Nodes=gpu-0,gpu-1,gpu-4\n" + "SwitchName=s1 Switches=l1\n");
  }

  @Test
  void writesOnlyWhenTheRenderingChangesAndRepairsADeletedConfigMap() throws Exception {
    topology(Duration.ofSeconds(2));
    node("k1", "s1", "l1");
    pod("gpu-0", "k1");
    replica.watchers.startWatching();
    String want = HEADER + "SwitchName=l1 Nodes=gpu-0\nSwitchName=s1 Switches=l1\n";
    waitForConf(want);
    Wait.until(
        "one write", () -> replica.counter("tandem.topology.publish", "outcome", "written") == 1);
    String rv =
        admin
            .configMaps()
            .withName(TopologyConfigMap.NAME)
            .get()
            .getMetadata()
            .getResourceVersion();

    // Changes that do not move the rendering: a pod annotation, a node's unrelated label, and
    // several repair passes (2 s each).
    admin
        .pods()
        .withName("gpu-0")
        .edit(
            p -> {
              p.getMetadata().setAnnotations(Map.of("x", "y"));
              return p;
            });
    OnConflict.retry(
        () ->
            admin
                .nodes()
                .withName("k1")
                .edit(
                    n -> {
                      n.getMetadata().setLabels(Map.of(SPINE, "s1", LEAF, "l1", "other", "z"));
                      return n;
                    }));
    Wait.until(
        "two repair passes that found the ConfigMap current",
        Duration.ofSeconds(20),
        () -> replica.counter("tandem.topology.publish", "outcome", "unchanged") >= 2);
    assertEquals(1, replica.counter("tandem.topology.publish", "outcome", "written"));
    assertEquals(
        rv,
        admin
            .configMaps()
            .withName(TopologyConfigMap.NAME)
            .get()
            .getMetadata()
            .getResourceVersion());

    // Deleted by hand: the next repair pass puts it back.
    admin.configMaps().withName(TopologyConfigMap.NAME).delete();
    Wait.until("deleted", () -> conf() == null);
    waitForConf(want);
  }

  @Test
  void contradictingLabelsKeepTheLastGoodTopology() {
    node("k1", "s1", "l1");
    node("k2", "s2", "l2");
    pod("gpu-0", "k1");
    pod("gpu-1", "k2");
    replica.watchers.startWatching();
    String good =
        HEADER
            + "SwitchName=l1 Nodes=gpu-0\n"
            + "SwitchName=l2 Nodes=gpu-1\n"
            + "SwitchName=s1 Switches=l1\n"
            + "SwitchName=s2 Switches=l2\n";
    waitForConf(good);
    // Leaf l1 now also under spine s2: a leaf with two parents.
    OnConflict.retry(
        () ->
            admin
                .nodes()
                .withName("k2")
                .edit(
                    n -> {
                      n.getMetadata().setLabels(Map.of(SPINE, "s2", LEAF, "l1"));
                      return n;
                    }));
    Wait.until(
        "the contradiction refused",
        () -> replica.counter("tandem.topology.publish", "outcome", "refused") >= 1);
    assertEquals(good, conf());
    assertEquals(
        "switch \"l1\" has two parents: \"s1\" and \"s2\"",
        replica.watchers.watching().topology.problem());
  }
}
