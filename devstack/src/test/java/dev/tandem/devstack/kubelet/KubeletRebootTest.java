package dev.tandem.devstack.kubelet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.Names;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The local kubelet as remediation's node agent: {@code tandem.dev/reboot-requested=<token>} on a
 * node restarts every pod process on it, as a reboot would, and is answered with {@code
 * tandem.dev/rebooted=<token>}.
 */
class KubeletRebootTest {
  private static final Duration WAIT = Duration.ofSeconds(15);

  @TempDir Path dir;
  PlaneShare plane;
  KubernetesClient client;
  String node1;
  String node2;
  FakeLauncher launcher;
  LocalKubelet kubelet;

  @BeforeEach
  void start() throws IOException {
    plane = new PlaneShare("reboot");
    client = plane.client;
    node1 = plane.node(1);
    node2 = plane.node(2);
    Path conf = dir.resolve("slurm.conf");
    Files.writeString(
        conf, "SlurmdSpoolDir=" + dir.resolve("spool") + "/%n\nNodeName=n[1-4] State=UNKNOWN\n");
    Files.writeString(
        dir.resolve("slurm.env"), "SLURM_CONF=" + conf + "\nSLURMD_BIN=/usr/sbin/slurmd\n");
    launcher = new FakeLauncher();
    kubelet =
        LocalKubelet.start(
            client,
            KubeletConfig.defaults()
                .withNodes(2)
                .withNodePrefix(plane.nodePrefix)
                .withSlurmEnvFile(dir.resolve("slurm.env"))
                .withLauncher(launcher)
                .withBackoff(Duration.ofMillis(200), Duration.ofMillis(800))
                .withResync(Duration.ofMillis(300)));
  }

  @AfterEach
  void stop() {
    if (kubelet != null) {
      kubelet.close();
    }
    plane.close();
  }

  private void pod(String name, String node, boolean slurmd) {
    client
        .pods()
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(slurmd ? Map.of(KubeletConfig.NODESET_LABEL, "n") : Map.of())
                .endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .withTerminationGracePeriodSeconds(30L)
                .addNewContainer()
                .withName("slurmd")
                .withImage("tandem/slurmd:22.05")
                .endContainer()
                .endSpec()
                .build())
        .create();
  }

  private ContainerStatus status(String pod) {
    Pod p = client.pods().withName(pod).get();
    return p == null
            || p.getStatus() == null
            || p.getStatus().getContainerStatuses() == null
            || p.getStatus().getContainerStatuses().isEmpty()
        ? null
        : p.getStatus().getContainerStatuses().get(0);
  }

  private boolean runningWithRestarts(String pod, int restarts) {
    ContainerStatus cs = status(pod);
    return cs != null
        && cs.getRestartCount() == restarts
        && cs.getState() != null
        && cs.getState().getRunning() != null;
  }

  private String annotation(String node, String key) {
    Map<String, String> a = client.nodes().withName(node).get().getMetadata().getAnnotations();
    return a == null ? null : a.get(key);
  }

  private static NodeCondition ready(Node n) {
    return n.getStatus().getConditions().stream()
        .filter(c -> "Ready".equals(c.getType()))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void aRequestedRebootRestartsEveryPodOnThatNodeAndIsEchoed() throws Exception {
    pod("n1", node1, true);
    pod("helper", node1, false);
    pod("n2", node2, true);
    for (String p : new String[] {"n1", "helper", "n2"}) {
      LocalKubeletTest.await(WAIT, () -> runningWithRestarts(p, 0), p + " running");
    }
    FakeLauncher.FakeProcess before = launcher.last("n1");
    // A GPU health agent's condition must survive the reboot: only the agent clears it.
    client
        .nodes()
        .withName(node1)
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.STRATEGIC_MERGE),
            "{\"status\":{\"conditions\":[{\"type\":\"GpuUnhealthy\",\"status\":\"True\"}]}}");
    Node was = client.nodes().withName(node1).get();
    String bootBefore = was.getStatus().getNodeInfo().getBootID();
    Thread.sleep(1100); // transition times have whole seconds

    client
        .nodes()
        .withName(node1)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"metadata\":{\"annotations\":{\""
                + Names.ANNOTATION_REBOOT_REQUESTED
                + "\":\"t1\"}}}");

    LocalKubeletTest.await(
        WAIT, () -> "t1".equals(annotation(node1, Names.ANNOTATION_REBOOTED)), "the echo");
    assertTrue(before.termed, "SIGTERM first, as a machine going down");
    assertEquals(2, launcher.forPod("n1").size(), "slurmd started again");
    assertTrue(launcher.last("n1").isAlive());
    LocalKubeletTest.await(WAIT, () -> runningWithRestarts("n1", 1), "n1 restart counted");
    LocalKubeletTest.await(WAIT, () -> runningWithRestarts("helper", 1), "helper restart counted");
    ContainerStatus cs = status("n1");
    assertNotNull(cs.getLastState().getTerminated());
    assertEquals("Unknown", cs.getLastState().getTerminated().getReason());
    assertEquals(255, cs.getLastState().getTerminated().getExitCode());
    assertEquals(1, launcher.forPod("n2").size(), "another node's pod is not touched");
    assertEquals(0, status("n2").getRestartCount());

    Node now = client.nodes().withName(node1).get();
    assertNotEquals(bootBefore, now.getStatus().getNodeInfo().getBootID(), "a new boot");
    assertEquals("True", ready(now).getStatus());
    assertTrue(
        ready(now).getLastTransitionTime().compareTo(ready(was).getLastTransitionTime()) > 0,
        "Ready changed when the node came back");
    assertTrue(
        now.getStatus().getConditions().stream()
            .anyMatch(c -> "GpuUnhealthy".equals(c.getType()) && "True".equals(c.getStatus())));

    // Once per token: the resync sees the echo and does nothing more.
    Thread.sleep(1000);
    assertEquals(2, launcher.forPod("n1").size());
    // A new token is a new reboot.
    client
        .nodes()
        .withName(node1)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"metadata\":{\"annotations\":{\""
                + Names.ANNOTATION_REBOOT_REQUESTED
                + "\":\"t2\"}}}");
    LocalKubeletTest.await(
        WAIT, () -> "t2".equals(annotation(node1, Names.ANNOTATION_REBOOTED)), "second echo");
    LocalKubeletTest.await(WAIT, () -> runningWithRestarts("n1", 2), "second restart counted");
    assertEquals(3, launcher.forPod("n1").size());
  }
}
