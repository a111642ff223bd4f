package dev.tandem.devstack.kubelet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The local kubelet on the real control plane (its own namespace and nodes, {@link PlaneShare}),
 * with an in-JVM fake in place of slurmd. Pods name their node themselves (as Tandem binds its
 * slurmd pods) unless a test is about kube-scheduler placing them.
 */
class LocalKubeletTest {
  static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir Path dir;
  PlaneShare plane;
  KubernetesClient client;
  FakeLauncher launcher;
  LocalKubelet kubelet;
  Path conf;

  @BeforeEach
  void start() throws IOException {
    plane = new PlaneShare("kubelet");
    client = plane.client;
    conf = dir.resolve("slurm.conf");
    Files.writeString(
        conf,
        "SlurmdSpoolDir="
            + dir.resolve("spool")
            + "/%n\nNodeName=n[1-4] State=UNKNOWN\nNodeName=gpu-a-[0-3] State=FUTURE\n");
    Files.writeString(
        dir.resolve("slurm.env"),
        "SLURM_CONF=" + conf + "\nSLURMD_BIN=/usr/sbin/slurmd\nTANDEM_SLURM_POOLS=gpu-a:4\n");
    launcher = new FakeLauncher();
    kubelet = LocalKubelet.start(client, config());
  }

  KubeletConfig config() {
    return KubeletConfig.defaults()
        .withNodes(3)
        .withNodePrefix(plane.nodePrefix)
        .withSlurmEnvFile(dir.resolve("slurm.env"))
        .withLogDir(dir.resolve("logs"))
        .withLauncher(launcher)
        .withBackoff(Duration.ofMillis(200), Duration.ofMillis(800))
        .withResync(Duration.ofMillis(300));
  }

  @AfterEach
  void stop() {
    if (kubelet != null) {
      kubelet.close();
    }
    plane.close();
  }

  static void await(Duration max, BooleanSupplier ok, String what) {
    long end = System.nanoTime() + max.toNanos();
    while (System.nanoTime() < end) {
      if (ok.getAsBoolean()) {
        return;
      }
      try {
        Thread.sleep(25);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
    throw new AssertionError("timed out after " + max + " waiting for " + what);
  }

  /** A pod bound to the first node from the start. */
  Pod create(String name, Map<String, String> labels, String restartPolicy) {
    PodBuilder b =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .withLabels(labels)
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("slurmd")
            .withImage("tandem/slurmd:22.05")
            .endContainer()
            .withNodeName(plane.node(1))
            .withRestartPolicy(restartPolicy)
            .withTerminationGracePeriodSeconds(30L)
            .endSpec();
    return client.pods().resource(b.build()).create();
  }

  Pod get(String name) {
    return client.pods().withName(name).get();
  }

  boolean phase(String name, String phase) {
    Pod p = get(name);
    return p != null && p.getStatus() != null && phase.equals(p.getStatus().getPhase());
  }

  static String condition(Pod p, String type) {
    return p.getStatus().getConditions().stream()
        .filter(c -> c.getType().equals(type))
        .map(PodCondition::getStatus)
        .findFirst()
        .orElse(null);
  }

  static ContainerStatus container(Pod p) {
    return p.getStatus().getContainerStatuses().get(0);
  }

  static Map<String, String> slurmd(String nodeset) {
    return Map.of(KubeletConfig.NODESET_LABEL, nodeset);
  }

  @Test
  void registersReadyNodesThatTheControlPlaneUntaints() {
    List<Node> nodes =
        client.nodes().withLabel(KubeletConfig.LOCAL_LABEL, "true").list().getItems().stream()
            .filter(n -> n.getMetadata().getName().startsWith(plane.nodePrefix))
            .toList();
    assertEquals(
        List.of(plane.node(1), plane.node(2), plane.node(3)),
        nodes.stream().map(n -> n.getMetadata().getName()).sorted().toList());
    Node n = nodes.get(0);
    assertEquals(
        "True",
        n.getStatus().getConditions().stream()
            .filter(c -> c.getType().equals("Ready"))
            .findFirst()
            .orElseThrow()
            .getStatus());
    assertEquals("8", n.getStatus().getCapacity().get("cpu").toString());
    assertEquals("127.0.0.1", n.getStatus().getAddresses().get(0).getAddress());
    // The node lifecycle controller lifts the not-ready taint the API server put on at creation.
    await(
        Duration.ofSeconds(60),
        () -> {
          Node x = client.nodes().withName(plane.node(1)).get();
          return x.getSpec().getTaints() == null || x.getSpec().getTaints().isEmpty();
        },
        "not-ready taint lifted");
  }

  /**
   * kube-scheduler binds a default pod to a Ready node it fits (here pinned to this test's node by
   * hostname, since the plane is shared) and the kubelet runs it; a pod of another scheduler runs
   * once something binds it.
   */
  @Test
  void runsWhatKubeSchedulerAndOtherSchedulersBind() {
    client
        .pods()
        .resource(
            new PodBuilder(podSpec("plain"))
                .editSpec()
                .withNodeSelector(Map.of("kubernetes.io/hostname", plane.node(2)))
                .endSpec()
                .build())
        .create();
    client
        .pods()
        .resource(
            new PodBuilder(podSpec("through-slurm"))
                .editSpec()
                .withSchedulerName("tandem-slurm")
                .endSpec()
                .build())
        .create();
    await(Duration.ofSeconds(60), () -> phase("plain", "Running"), "plain Running");
    Pod p = get("plain");
    assertEquals(plane.node(2), p.getSpec().getNodeName());
    for (String c : List.of("PodScheduled", "Initialized", "ContainersReady", "Ready")) {
      assertEquals("True", condition(p, c), c);
    }
    assertEquals("127.0.0.1", p.getStatus().getPodIP());
    assertEquals("127.0.0.1", p.getStatus().getHostIP());
    assertNotNull(p.getStatus().getStartTime());
    assertNotNull(container(p).getState().getRunning());
    assertTrue(launcher.forPod("plain").isEmpty(), "non-slurmd pods run without a process");

    client
        .bindings()
        .resource(
            new io.fabric8.kubernetes.api.model.BindingBuilder()
                .withNewMetadata()
                .withName("through-slurm")
                .endMetadata()
                .withNewTarget()
                .withKind("Node")
                .withName(plane.node(3))
                .endTarget()
                .build())
        .create();
    await(WAIT, () -> phase("through-slurm", "Running"), "runs once bound");
  }

  private Pod podSpec(String name) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("c")
        .withImage("i")
        .endContainer()
        .endSpec()
        .build();
  }

  private String conditionOrNull(String pod, String type) {
    Pod p = get(pod);
    return p == null || p.getStatus() == null || p.getStatus().getConditions() == null
        ? null
        : condition(p, type);
  }

  @Test
  void slurmdPodsRunSlurmdWithTheLocalSlurmConfig() {
    create("gpu-a-0", slurmd("gpu-a"), null);
    await(
        WAIT,
        () -> phase("gpu-a-0", "Running") && "True".equals(conditionOrNull("gpu-a-0", "Ready")),
        "Ready");
    FakeLauncher.FakeProcess proc = launcher.last("gpu-a-0");
    assertEquals(
        List.of("/usr/sbin/slurmd", "-D", "-N", "gpu-a-0", "-f", conf.toString()),
        proc.spec.command());
    assertTrue(Files.isDirectory(dir.resolve("spool/gpu-a-0")), "spool dir pre-created");
    ContainerStatus cs = container(get("gpu-a-0"));
    assertEquals("local://" + proc.pid(), cs.getContainerID());
    assertEquals(0, cs.getRestartCount());
    assertTrue(cs.getReady());
  }

  /** An scontrol stand-in that records its arguments, one run per line. */
  Path fakeScontrol() throws IOException {
    Path log = dir.resolve("scontrol.log");
    Path bin = dir.resolve("scontrol");
    Files.writeString(bin, "#!/bin/sh\necho \"$*\" >> " + log + "\n");
    bin.toFile().setExecutable(true);
    Files.writeString(
        dir.resolve("slurm.env"),
        Files.readString(dir.resolve("slurm.env")) + "SCONTROL_BIN=" + bin + "\n");
    return log;
  }

  Pod createDynamic(String name, String nodeConf) {
    Pod p =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .withLabels(slurmd("dyn"))
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("slurmd")
            .withImage("tandem/slurmd:22.05")
            .addNewEnv()
            .withName("SLURM_NODE_CONF")
            .withValue(nodeConf)
            .endEnv()
            .endContainer()
            .withTerminationGracePeriodSeconds(30L)
            .withNodeName(plane.node(1))
            .endSpec()
            .build();
    return client.pods().resource(p).create();
  }

  static List<String> lines(Path f) {
    try {
      return Files.exists(f) ? Files.readAllLines(f) : List.of();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void undeclaredNameRunsOneDynamicSlurmdWithThePodsNodeConf() throws IOException {
    Path scontrolLog = fakeScontrol();
    createDynamic("dyn-0", "Feature=h100,ib Gres=gpu:h100:8 Weight=7");
    await(WAIT, () -> phase("dyn-0", "Running"), "dyn-0 Running");
    Path confDir = dir.resolve("dyn/dyn-0");
    assertEquals(
        List.of(
            "/usr/sbin/slurmd",
            "-D",
            "-Z",
            "-N",
            "dyn-0",
            "-f",
            confDir.resolve("slurm.conf").toString(),
            "--conf",
            "Feature=h100,ib Gres=gpu:h100:8 Weight=7"),
        launcher.last("dyn-0").spec.command());
    assertEquals(Files.readString(conf), Files.readString(confDir.resolve("slurm.conf")));
    String gres = Files.readString(confDir.resolve("gres.conf"));
    assertTrue(gres.contains("AutoDetect=off"), gres);
    assertTrue(
        gres.contains(
            "NodeName=dyn-0 Name=gpu Type=h100 File=" + confDir.resolve("dev/gpu") + "[0-7]"),
        gres);
    for (int i = 0; i < 8; i++) {
      assertEquals(
          Path.of("/dev/null"), Files.readSymbolicLink(confDir.resolve("dev/gpu" + i)), "gpu" + i);
    }
    // Like a real kubelet, it never touches the Slurm record (the node workflow removes it).
    assertEquals(List.of(), lines(scontrolLog));

    // One SlurmdPort: a second dynamic node waits, and says why.
    createDynamic("dyn-1", "Feature=h100");
    await(
        WAIT,
        () -> {
          Pod p = get("dyn-1");
          return p.getStatus() != null
              && p.getStatus().getContainerStatuses() != null
              && !p.getStatus().getContainerStatuses().isEmpty();
        },
        "dyn-1 status");
    var waiting = container(get("dyn-1")).getState().getWaiting();
    assertEquals(DynamicNodes.PORT_BUSY, waiting.getReason());
    assertTrue(waiting.getMessage().contains("dyn-0"), waiting.getMessage());
    assertTrue(launcher.forPod("dyn-1").isEmpty());

    // Deleting dyn-0 stops its slurmd (its Slurm record stays); then dyn-1 starts.
    client.pods().withName("dyn-0").delete();
    await(WAIT, () -> get("dyn-0") == null, "dyn-0 gone");
    await(WAIT, () -> phase("dyn-1", "Running"), "dyn-1 Running");
    assertEquals(List.of(), lines(scontrolLog));
    assertEquals(
        List.of("--conf", "Feature=h100"), launcher.last("dyn-1").spec.command().subList(7, 9));
  }

  @Test
  void aCrashedDynamicSlurmdKeepsItsRecord() throws IOException {
    Path scontrolLog = fakeScontrol();
    createDynamic("dyn-0", "Feature=h100");
    await(WAIT, () -> launcher.last("dyn-0") != null, "launched");
    launcher.last("dyn-0").exitWith(1);
    await(WAIT, () -> launcher.forPod("dyn-0").size() == 2, "restarted");
    // A restart re-registers with the node's own record (and any drain on it).
    assertEquals(List.of(), lines(scontrolLog));
  }

  @Test
  void declaredNamesNeverHaveTheirRecordDeleted() throws IOException {
    Path scontrolLog = fakeScontrol();
    create("gpu-a-0", slurmd("gpu-a"), null);
    await(WAIT, () -> phase("gpu-a-0", "Running"), "Running");
    client.pods().withName("gpu-a-0").delete();
    await(WAIT, () -> get("gpu-a-0") == null, "pod gone");
    // Slurm 22.05 deletes declared nodes too (static ones included): never for them.
    assertEquals(List.of(), lines(scontrolLog));
  }

  @Test
  void crashedContainerRestartsWithBackoff() {
    create("gpu-a-1", slurmd("gpu-a"), "Always");
    await(WAIT, () -> launcher.last("gpu-a-1") != null, "launched");
    long t0 = System.nanoTime();
    launcher.last("gpu-a-1").exitWith(1);
    await(WAIT, () -> launcher.forPod("gpu-a-1").size() == 2, "restarted");
    long firstMs = (System.nanoTime() - t0) / 1_000_000;
    assertTrue(firstMs >= 180, "back-off respected, restarted after " + firstMs + " ms");
    await(
        WAIT,
        () ->
            container(get("gpu-a-1")).getRestartCount() == 1
                && container(get("gpu-a-1")).getState().getRunning() != null,
        "status shows the restart");
    ContainerStatus cs = container(get("gpu-a-1"));
    assertEquals(1, cs.getLastState().getTerminated().getExitCode());
    assertEquals("Error", cs.getLastState().getTerminated().getReason());
    long t1 = System.nanoTime();
    launcher.last("gpu-a-1").exitWith(2);
    await(WAIT, () -> launcher.forPod("gpu-a-1").size() == 3, "restarted again");
    long secondMs = (System.nanoTime() - t1) / 1_000_000;
    assertTrue(secondMs >= 380, "back-off doubles, restarted after " + secondMs + " ms");
    assertEquals("Running", get("gpu-a-1").getStatus().getPhase());
  }

  @Test
  void restartPolicyNeverAndOnFailureEndThePod() {
    create("gpu-a-2", slurmd("gpu-a"), "Never");
    create("gpu-a-3", slurmd("gpu-a"), "OnFailure");
    await(
        WAIT,
        () -> launcher.last("gpu-a-2") != null && launcher.last("gpu-a-3") != null,
        "launched");
    launcher.last("gpu-a-2").exitWith(3);
    launcher.last("gpu-a-3").exitWith(0);
    await(
        WAIT, () -> phase("gpu-a-2", "Failed") && phase("gpu-a-3", "Succeeded"), "terminal phases");
    assertEquals(3, container(get("gpu-a-2")).getState().getTerminated().getExitCode());
    assertEquals("Completed", container(get("gpu-a-3")).getState().getTerminated().getReason());
    assertEquals("False", condition(get("gpu-a-2"), "Ready"));
    sleepMs(500);
    assertEquals(1, launcher.forPod("gpu-a-2").size(), "no restart");
  }

  @Test
  void deletionStopsTheProcessThenLetsThePodGo() {
    create("gpu-a-0", slurmd("gpu-a"), null);
    await(WAIT, () -> phase("gpu-a-0", "Running"), "Running");
    FakeLauncher.FakeProcess proc = launcher.last("gpu-a-0");
    client.pods().withName("gpu-a-0").delete();
    await(WAIT, () -> get("gpu-a-0") == null, "pod gone");
    assertTrue(proc.termed);
    assertFalse(proc.killed, "it obeyed SIGTERM");
  }

  @Test
  void processIgnoringSigtermIsKilledAfterTheGracePeriod() {
    launcher.obeysTerm = false;
    create("gpu-a-1", slurmd("gpu-a"), null);
    await(WAIT, () -> phase("gpu-a-1", "Running"), "Running");
    FakeLauncher.FakeProcess proc = launcher.last("gpu-a-1");
    long t0 = System.nanoTime();
    client.pods().withName("gpu-a-1").withGracePeriod(1).delete();
    await(WAIT, () -> get("gpu-a-1") == null, "pod gone");
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertTrue(proc.termed && proc.killed);
    assertTrue(ms >= 900, "SIGKILL only after the 1 s grace period, took " + ms + " ms");
  }

  @Test
  void foreignPodConditionsSurviveStatusUpdates() {
    create("gpu-a-2", slurmd("gpu-a"), null);
    await(WAIT, () -> phase("gpu-a-2", "Running"), "Running");
    client
        .pods()
        .withName("gpu-a-2")
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.STRATEGIC_MERGE),
            "{\"status\":{\"conditions\":[{\"type\":\"tandem.dev/SlurmDrain\",\"status\":\"True\",\"reason\":\"admin\"}]}}");
    launcher.last("gpu-a-2").exitWith(1);
    await(WAIT, () -> container(get("gpu-a-2")).getRestartCount() == 1, "restart reported");
    assertEquals("True", condition(get("gpu-a-2"), "tandem.dev/SlurmDrain"));
  }

  @Test
  void closeStopsProcessesAndANewKubeletAdoptsBoundPods() {
    create("gpu-a-3", slurmd("gpu-a"), null);
    await(WAIT, () -> phase("gpu-a-3", "Running"), "Running");
    FakeLauncher.FakeProcess first = launcher.last("gpu-a-3");
    kubelet.close();
    assertTrue(first.termed && !first.isAlive(), "close stops what it started");
    kubelet = LocalKubelet.start(client, config());
    await(WAIT, () -> launcher.forPod("gpu-a-3").size() == 2, "adopted and started again");
    await(
        WAIT,
        () ->
            container(get("gpu-a-3")).getRestartCount() == 1
                && container(get("gpu-a-3")).getState().getRunning() != null,
        "restart counted");
  }

  @Test
  void realProcessesThroughTheOsLauncher() throws Exception {
    kubelet.close();
    OsProcessLauncher os = new OsProcessLauncher();
    java.util.List<RunningProcess> started = new java.util.concurrent.CopyOnWriteArrayList<>();
    // slurmd is replaced by sleep; the second pod's process ignores SIGTERM like a stuck daemon.
    kubelet =
        LocalKubelet.start(
            client,
            config()
                .withLauncher(
                    spec -> {
                      List<String> cmd =
                          spec.pod().equals("gpu-a-1")
                              ? List.of("sh", "-c", "trap '' TERM; exec sleep 300")
                              : List.of("sleep", "300");
                      RunningProcess p =
                          os.launch(
                              new ProcessSpec(
                                  spec.namespace(),
                                  spec.pod(),
                                  spec.container(),
                                  cmd,
                                  spec.env(),
                                  spec.logFile()));
                      started.add(p);
                      return p;
                    }));
    create("gpu-a-0", slurmd("gpu-a"), null);
    create("gpu-a-1", slurmd("gpu-a"), null);
    await(
        WAIT,
        () -> phase("gpu-a-0", "Running") && phase("gpu-a-1", "Running") && started.size() == 2,
        "both Running");
    for (RunningProcess p : started) {
      assertTrue(
          ProcessHandle.of(p.pid()).map(ProcessHandle::isAlive).orElse(false), "a real process");
    }
    client.pods().withName("gpu-a-0").delete();
    client.pods().withName("gpu-a-1").withGracePeriod(1).delete();
    await(
        Duration.ofSeconds(15),
        () -> get("gpu-a-0") == null && get("gpu-a-1") == null,
        "both gone");
    for (RunningProcess p : started) {
      assertFalse(p.isAlive());
    }
    assertEquals(
        137,
        started.get(started.get(0).exit().get() == 143 ? 1 : 0).exit().get(),
        "the stubborn one was SIGKILLed");
  }

  private static void sleepMs(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
