package dev.tandem.e2e;

import dev.tandem.dev.DevStack;
import dev.tandem.dev.Manifests;
import dev.tandem.k8s.NodeSetResources;
import dev.tandem.slurm.testing.Await;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Topology from labels, end to end on the real Slurm 22.05: the local Kubernetes nodes are labelled
 * as two leaves under one spine, a NodeSet runs, the worker publishes ConfigMap {@code
 * tandem-topology}, the stack installs it into slurmctld (docs/topology.md), and {@code scontrol
 * show topology} shows every Slurm node under the leaf of its Kubernetes node. Then a node removed
 * (scale down) and a node moved to another leaf (relabel): Slurm's topology follows.
 *
 * <p>Runs its own Slurm instance (state dir {@code <TANDEM_SLURM_DIR>-topo}, port bases +50/+600)
 * started with {@code TANDEM_SLURM_TOPOLOGY=tree}: topology/tree takes a slurmctld restart, and
 * other suites' Slurm must stay without it.
 */
class TopologyE2EIT {
  static final String SPINE = "topology.tandem.dev/spine";
  static final String LEAF = "topology.tandem.dev/leaf";
  static final Duration LIMIT = Duration.ofSeconds(90);

  static Map<String, String> slurmEnv() {
    Map<String, String> env = new HashMap<>(System.getenv());
    String dir = env.getOrDefault("TANDEM_SLURM_DIR", "/var/tmp/tandem-slurm");
    int port = Integer.parseInt(env.getOrDefault("TANDEM_SLURM_PORT_BASE", "6817"));
    int nodePort = Integer.parseInt(env.getOrDefault("TANDEM_SLURM_NODE_PORT_BASE", "17001"));
    env.put("TANDEM_SLURM_DIR", dir + "-topo");
    env.put("TANDEM_SLURM_PORT_BASE", Integer.toString(port + 50));
    env.put("TANDEM_SLURM_NODE_PORT_BASE", Integer.toString(nodePort + 600));
    env.put("TANDEM_SLURM_TOPOLOGY", "tree");
    return env;
  }

  @Test
  void slurmctldLoadsTheTopologyRenderedFromLabelsAndItFollowsTheNodes() throws Exception {
    Map<String, String> slurmEnv = slurmEnv();
    Map<String, String> workerEnv = new HashMap<>(E2EStack.FAST);
    workerEnv.put("TANDEM_TOPOLOGY", "tree:" + SPINE + "," + LEAF);
    Path dir = Files.createTempDirectory("tandem-topo-");
    try (DevStack stack =
        DevStack.start(
            new DevStack.Options(dir, 0, 0, 0, 3, workerEnv, slurmEnv, true),
            new PrintWriter(System.out, true))) {
      KubernetesClient k8s = stack.kubernetes();
      Map<String, String> leafOf =
          new TreeMap<>(Map.of("local-1", "l1", "local-2", "l2", "local-3", "l2"));
      leafOf.forEach((node, leaf) -> label(k8s, node, "s1", leaf));
      stack.apply(
          new ByteArrayInputStream(
              Manifests.nodeSet("e2e", 3, "slurmd:v1", "").getBytes(StandardCharsets.UTF_8)));
      String conf = stack.slurm().env().get("SLURM_CONF");

      awaitSlurmTopology(k8s, conf, leafOf, 3);

      // A node removed: the NodeSet scaled to 2 (drain, delete, the pod gone).
      NodeSetResources.generic(k8s)
          .inNamespace("default")
          .withName("e2e")
          .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"replicas\":2}}");
      awaitSlurmTopology(k8s, conf, leafOf, 2);

      // A Kubernetes node moved to another leaf: its Slurm nodes follow.
      leafOf.put("local-1", "l3");
      label(k8s, "local-1", "s1", "l3");
      awaitSlurmTopology(k8s, conf, leafOf, 2);

      NodeSetResources.generic(k8s).inNamespace("default").withName("e2e").delete();
      Await.until(
          "NodeSet e2e's pods gone",
          LIMIT,
          Duration.ofMillis(250),
          () -> pods(k8s).isEmpty(),
          b -> b);
    }
  }

  static void label(KubernetesClient k8s, String node, String spine, String leaf) {
    k8s.nodes()
        .withName(node)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"metadata\":{\"labels\":{\""
                + SPINE
                + "\":\""
                + spine
                + "\",\""
                + LEAF
                + "\":\""
                + leaf
                + "\"}}}");
  }

  static List<Pod> pods(KubernetesClient k8s) {
    return k8s.pods()
        .inNamespace("default")
        .withLabel("tandem.dev/nodeset", "e2e")
        .list()
        .getItems();
  }

  /**
   * Waits until Slurm's switches are exactly: each bound NodeSet pod under the leaf of its
   * Kubernetes node, those leaves under spine s1, and the static nodes on their own switch.
   */
  static void awaitSlurmTopology(
      KubernetesClient k8s, String conf, Map<String, String> leafOf, int pods) {
    Await.until(
        "scontrol show topology = the labels of " + pods + " pods' nodes",
        LIMIT,
        Duration.ofMillis(500),
        () -> {
          List<Pod> ps = pods(k8s);
          Map<String, TreeSet<String>> want = new TreeMap<>();
          for (Pod p : ps) {
            String on = p.getSpec().getNodeName();
            if (on == null || p.getMetadata().getDeletionTimestamp() != null) {
              return "pod " + p.getMetadata().getName() + " not bound or going";
            }
            want.computeIfAbsent(leafOf.get(on), k -> new TreeSet<>())
                .add(p.getMetadata().getName());
          }
          if (ps.size() != pods) {
            return ps.size() + " pods";
          }
          want.put("s1", new TreeSet<>(want.keySet()));
          want.put(
              "local-static",
              new TreeSet<>(
                  hostnames(
                      conf,
                      "n[1-" + System.getenv().getOrDefault("TANDEM_SLURM_NODES", "4") + "]")));
          return want.equals(slurmSwitches(conf))
              ? "ok"
              : "want " + want + ", Slurm " + slurmSwitches(conf);
        },
        "ok"::equals);
  }

  /** Switch name to its children (node names for leaves, switch names above) as Slurm reports. */
  static Map<String, TreeSet<String>> slurmSwitches(String conf) {
    Map<String, TreeSet<String>> out = new TreeMap<>();
    for (String line : scontrol(conf, "show", "topology").split("\n")) {
      Map<String, String> f = new HashMap<>();
      for (String kv : line.trim().split("\\s+")) {
        int eq = kv.indexOf('=');
        if (eq > 0) {
          f.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
      }
      if (f.get("SwitchName") == null) {
        continue;
      }
      String children = f.containsKey("Switches") ? f.get("Switches") : f.get("Nodes");
      out.put(f.get("SwitchName"), new TreeSet<>(hostnames(conf, children)));
    }
    return out;
  }

  static List<String> hostnames(String conf, String list) {
    return List.of(scontrol(conf, "show", "hostnames", list).trim().split("\n"));
  }

  static String scontrol(String conf, String... args) {
    try {
      List<String> cmd = new java.util.ArrayList<>(List.of("scontrol"));
      cmd.addAll(List.of(args));
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
      pb.environment().put("SLURM_CONF", conf);
      Process p = pb.start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(20, TimeUnit.SECONDS) || p.exitValue() != 0) {
        p.destroyForcibly();
        return "";
      }
      return out;
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }
}
