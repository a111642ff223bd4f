package dev.tandem.devstack.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tandem.devstack.kubelet.KubeletConfig;
import dev.tandem.devstack.kubelet.LocalKubelet;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The machine's kubectl (1.32) against the local API and a local kubelet (which binds and "runs"
 * pods so drain has something real to wait for). Skipped, with a message, where kubectl is absent:
 * the client-level tests cover every behaviour on their own.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KubectlTest extends ApiTestBase {
  private static final Path KUBECTL =
      Path.of(System.getProperty("tandem.kubectl", "/usr/bin/kubectl"));
  private static LocalKubelet kubelet;
  private static Path kubeconfig;
  private static Path cacheDir;
  private static Path logDir;

  record Out(int code, String text) {}

  @BeforeAll
  static void kubeletAndConfig(@TempDir Path tmp) {
    assumeTrue(
        Files.isExecutable(KUBECTL),
        "kubectl not found at " + KUBECTL + ": kubectl tests skipped (set -Dtandem.kubectl=...)");
    kubeconfig = server.writeKubeconfig(tmp.resolve("kubeconfig"));
    logDir = tmp.resolve("logs");
    server.servePodLogsFrom(logDir);
    cacheDir = tmp.resolve("kube-cache");
    kubelet =
        LocalKubelet.start(
            server.client(),
            KubeletConfig.defaults()
                .withNodes(2)
                .withSlurmEnvFile(tmp.resolve("no-slurm/slurm.env"))
                .withLogDir(tmp.resolve("logs"))
                .withResync(Duration.ofSeconds(2)));
  }

  @AfterAll
  static void stopKubelet() {
    if (kubelet != null) {
      kubelet.close();
    }
  }

  /** kubectl with this test's kubeconfig and cache, then {@code args}. */
  static List<String> command(String... args) {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                KUBECTL.toString(),
                "--kubeconfig",
                kubeconfig.toString(),
                "--cache-dir",
                cacheDir.toString()));
    cmd.addAll(List.of(args));
    return cmd;
  }

  static Out kubectl(String... args) {
    List<String> cmd = command("--request-timeout=20s");
    cmd.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("kubectl timed out: " + cmd);
      }
      return new Out(
          p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new AssertionError("cannot run " + cmd, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  static Out ok(String... args) {
    Out o = kubectl(args);
    assertEquals(0, o.code(), String.join(" ", args) + " ->\n" + o.text());
    return o;
  }

  static Path file(String name, String content) throws IOException {
    Path p = cacheDir.getParent().resolve(name);
    Files.writeString(p, content);
    return p;
  }

  private static final String POD =
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  labels: {app: web}\nspec:\n  containers:\n  - name: c\n    image: nginx:1.25\n";

  private static final String NODESET =
      "apiVersion: tandem.dev/v1alpha1\nkind: NodeSet\nmetadata:\n  name: gpu-a\nspec:\n  replicas: 2\n  template:\n    spec:\n      containers: [{name: slurmd, image: tandem/slurmd:22.05}]\n";

  @Test
  @Order(1)
  void getApplyDescribe() throws IOException {
    assertTrue(ok("get", "nodes").text().contains("local-1"));
    assertTrue(
        ok("apply", "-f", file("pod.yaml", POD).toString()).text().contains("pod/web created"));
    await(
        Duration.ofSeconds(10),
        () -> ok("get", "pod", "web").text().contains("Running"),
        "web Running");
    String wide = ok("get", "pods", "-o", "wide").text();
    assertTrue(wide.contains("127.0.0.1") && wide.contains("local-"), wide);
    String described = ok("describe", "pod", "web").text();
    assertTrue(described.contains("Status:") && described.contains("Running"), described);
    assertTrue(
        ok(
                "apply",
                "-f",
                file("pod2.yaml", POD.replace("{app: web}", "{app: web, tier: front}")).toString())
            .text()
            .contains("configured"));
    assertEquals(
        "front",
        client
            .pods()
            .inNamespace("default")
            .withName("web")
            .get()
            .getMetadata()
            .getLabels()
            .get("tier"));
    assertTrue(ok("describe", "node", "local-1").text().contains("Kubelet Version"));
  }

  /** Events print as a real API server prints them, so what Tandem says about a pod is readable. */
  @Test
  @Order(2)
  void eventsShowWhenWhatAndWhy() {
    client
        .v1()
        .events()
        .inNamespace("default")
        .resource(
            new EventBuilder()
                .withNewMetadata()
                .withName("trainer-0.a1")
                .endMetadata()
                .withNewInvolvedObject()
                .withKind("Pod")
                .withNamespace("default")
                .withName("trainer-0")
                .withUid("u-1")
                .endInvolvedObject()
                .withType("Warning")
                .withReason("SlurmPreempted")
                .withMessage("Slurm preempted job 2: the pod is evicted")
                .withNewSource()
                .withComponent("tandem")
                .endSource()
                .withFirstTimestamp(Instant.now().minusSeconds(300).toString())
                .withLastTimestamp(Instant.now().minusSeconds(30).toString())
                .withCount(2)
                .build())
        .create();
    List<String> lines =
        ok("get", "events", "--field-selector", "involvedObject.name=trainer-0")
            .text()
            .lines()
            .toList();
    assertEquals(
        List.of("LAST", "SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"), words(lines.get(0)));
    assertEquals(
        List.of(
            "Warning",
            "SlurmPreempted",
            "pod/trainer-0",
            "Slurm preempted job 2: the pod is evicted"),
        List.of(lines.get(1).split(" {2,}")).subList(1, 5),
        lines.toString());
    String wide = ok("get", "events", "-o", "wide").text();
    assertTrue(wide.lines().findFirst().orElse("").contains("FIRST SEEN"), wide);
    String row = wide.lines().filter(l -> l.contains("trainer-0.a1")).findFirst().orElse("");
    assertTrue(row.contains("tandem") && row.contains(" 5m ") && row.contains(" 2 "), wide);
  }

  private static List<String> words(String line) {
    return List.of(line.trim().split("\\s+"));
  }

  /** {@code kubectl logs}: the kubelet's file for the container, through {@code pods/log}. */
  @Test
  @Order(2)
  void logsPrintWhatTheContainerWrote() throws IOException {
    Files.createDirectories(logDir);
    Files.writeString(logDir.resolve("default_web_c.log"), "hello\nworld\n");
    assertEquals("hello\nworld\n", ok("logs", "web").text());
    assertEquals("world\n", ok("logs", "web", "--tail=1").text());
    assertEquals("hello\nworld\n", ok("logs", "pod/web", "-c", "c").text());
    Out bad = kubectl("logs", "web", "-c", "nosuch");
    assertNotEquals(0, bad.code());
    assertTrue(bad.text().contains("container nosuch is not valid for pod web"), bad.text());
  }

  @Test
  @Order(2)
  void labelAnnotatePatch() {
    ok("label", "pod", "web", "env=dev");
    ok("annotate", "pod", "web", "note=hello");
    ok(
        "patch",
        "pod",
        "web",
        "--type",
        "merge",
        "-p",
        "{\"metadata\":{\"labels\":{\"patched\":\"yes\"}}}");
    Pod p = client.pods().inNamespace("default").withName("web").get();
    assertEquals("dev", p.getMetadata().getLabels().get("env"));
    assertEquals("yes", p.getMetadata().getLabels().get("patched"));
    assertEquals("hello", p.getMetadata().getAnnotations().get("note"));
    Out refused =
        kubectl(
            "patch",
            "pod",
            "web",
            "--type",
            "merge",
            "-p",
            "{\"spec\":{\"nodeName\":\"elsewhere\"}}");
    assertNotEquals(0, refused.code());
    assertTrue(refused.text().contains("pod updates may not change fields"), refused.text());
  }

  @Test
  @Order(3)
  void customResourcesApplyScalePatchAndValidation() throws IOException {
    Path ns = file("nodeset.yaml", NODESET);
    assertTrue(ok("apply", "-f", ns.toString()).text().contains("created"));
    assertTrue(
        ok(
                "apply",
                "-f",
                file("nodeset2.yaml", NODESET.replace("replicas: 2", "replicas: 3")).toString())
            .text()
            .contains("configured"));
    ok("scale", "nodeset", "gpu-a", "--replicas=5");
    ok("patch", "nodeset", "gpu-a", "--type", "merge", "-p", "{\"spec\":{\"partition\":\"gpu\"}}");
    ok("label", "nodeset", "gpu-a", "team=hpc");
    TestNodeSet n =
        client.resources(TestNodeSet.class).inNamespace("default").withName("gpu-a").get();
    assertEquals(5, n.getSpec().replicas);
    assertEquals("gpu", n.getSpec().partition);
    assertEquals("hpc", n.getMetadata().getLabels().get("team"));
    String table = ok("get", "nst").text();
    assertTrue(table.contains("REPLICAS") && table.contains("gpu-a"), table);
    assertTrue(ok("get", "tandem").text().contains("gpu-a"), "category");
    Out invalid =
        kubectl(
            "apply",
            "-f",
            file(
                    "bad.yaml",
                    NODESET
                        .replace("name: gpu-a", "name: bad")
                        .replace("replicas: 2", "replicas: -1"))
                .toString());
    assertNotEquals(0, invalid.code());
    assertTrue(
        invalid.text().contains("spec.replicas in body should be greater than or equal to 0"),
        invalid.text());
    Out unknown =
        kubectl(
            "apply",
            "-f",
            file(
                    "unknown.yaml",
                    NODESET
                        .replace("name: gpu-a", "name: unk")
                        .replace("replicas: 2", "replicas: 2\n  colour: red"))
                .toString());
    assertNotEquals(0, unknown.code(), "kubectl validates strictly via the server");
    assertTrue(unknown.text().contains("unknown field"), unknown.text());
    assertTrue(ok("delete", "-f", ns.toString()).text().contains("deleted"));
    assertNull(client.resources(TestNodeSet.class).inNamespace("default").withName("gpu-a").get());
  }

  @Test
  @Order(4)
  void cordonDrainUncordon() {
    String node =
        client.pods().inNamespace("default").withName("web").get().getSpec().getNodeName();
    ok("cordon", node);
    assertTrue(client.nodes().withName(node).get().getSpec().getUnschedulable());
    assertTrue(ok("get", "node", node).text().contains("SchedulingDisabled"));
    Out drained = ok("drain", node, "--force", "--ignore-daemonsets", "--timeout=60s");
    assertTrue(drained.text().contains("evicted"), drained.text());
    assertNull(client.pods().inNamespace("default").withName("web").get());
    ok("uncordon", node);
    assertFalse(
        Boolean.TRUE.equals(client.nodes().withName(node).get().getSpec().getUnschedulable()));
  }

  @Test
  @Order(5)
  void delete() throws IOException {
    ok("apply", "-f", file("pod3.yaml", POD.replace("name: web", "name: short-lived")).toString());
    await(
        Duration.ofSeconds(10),
        () -> ok("get", "pod", "short-lived").text().contains("Running"),
        "Running");
    String deleted = ok("delete", "pod", "short-lived", "--timeout=60s").text();
    assertTrue(deleted.contains("deleted"), deleted);
    // kubectl waits for the deletion over an HTTP streaming watch: no reflector errors on the way
    assertFalse(deleted.contains("reflector") || deleted.contains("watch"), deleted);
    assertNull(client.pods().inNamespace("default").withName("short-lived").get());
    Out missing = kubectl("delete", "pod", "short-lived");
    assertTrue(missing.text().contains("NotFound"), missing.text());
  }

  @Test
  @Order(6)
  void deleteCascadeForegroundWaitsForTheDependents() throws IOException {
    ok("apply", "-f", file("fg.yaml", NODESET.replace("name: gpu-a", "name: fg")).toString());
    TestNodeSet owner =
        client.resources(TestNodeSet.class).inNamespace("default").withName("fg").get();
    client
        .pods()
        .inNamespace("default")
        .resource(
            new PodBuilder(pod("fg-0", java.util.Map.of()))
                .editMetadata()
                .addNewOwnerReference()
                .withApiVersion("tandem.dev/v1alpha1")
                .withKind("NodeSet")
                .withName("fg")
                .withUid(owner.getMetadata().getUid())
                .withController(true)
                .withBlockOwnerDeletion(true)
                .endOwnerReference()
                .withFinalizers("tandem.dev/test-hold")
                .endMetadata()
                .build())
        .create();
    await(
        Duration.ofSeconds(10),
        () -> ok("get", "pod", "fg-0").text().contains("Running"),
        "Running");

    ok("delete", "nodeset", "fg", "--cascade=foreground", "--wait=false");
    await(
        Duration.ofSeconds(10),
        () ->
            client
                    .pods()
                    .inNamespace("default")
                    .withName("fg-0")
                    .get()
                    .getMetadata()
                    .getDeletionTimestamp()
                != null,
        "the dependent is being deleted");
    assertTrue(server.awaitGarbageCollector(Duration.ofSeconds(10)));
    assertEquals(
        "[\"foregroundDeletion\"]",
        ok("get", "nodeset", "fg", "-o", "jsonpath={.metadata.finalizers}").text().trim(),
        "the owner waits for its blocking dependent");

    ok("patch", "pod", "fg-0", "--type", "merge", "-p", "{\"metadata\":{\"finalizers\":null}}");
    await(
        Duration.ofSeconds(20),
        () ->
            client.resources(TestNodeSet.class).inNamespace("default").withName("fg").get() == null,
        "the owner goes after its dependent");
    assertNull(client.pods().inNamespace("default").withName("fg-0").get());
  }

  /** {@code kubectl get -w}: an HTTP streaming watch of server-printed tables (HttpWatchStream). */
  @Test
  @Order(7)
  void getWatchPrintsChangesAsTheyHappen() throws Exception {
    Path out = cacheDir.getParent().resolve("get-w.txt");
    List<String> cmd = command("get", "pods", "-l", "app=watched", "-w", "--output-watch-events");
    int before = server.openWatches();
    Process p =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    try {
      await(Duration.ofSeconds(20), () -> server.openWatches() > before, "kubectl watching");
      createPod("default", "watched-0", java.util.Map.of("app", "watched"));
      await(
          Duration.ofSeconds(20),
          () -> read(out).matches("(?s).*ADDED +watched-0 .*"),
          "the new pod printed");
      client.pods().inNamespace("default").withName("watched-0").delete();
      await(
          Duration.ofSeconds(30),
          () -> read(out).matches("(?s).*DELETED +watched-0 .*"),
          "the deletion printed");
      assertTrue(p.isAlive(), "kubectl get -w still watching:\n" + read(out));
      assertFalse(read(out).contains("rror"), read(out));
    } finally {
      p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  private static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      return "";
    }
  }
}
