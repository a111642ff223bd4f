package dev.tandem.devstack.kube;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The control plane of {@code scripts/kube-local.sh} is the real one, configured as the script
 * says: the pinned release answers {@code /version}; the NodeSet CRD's schema and CEL rules refuse
 * bad NodeSets with the API server's own messages; the garbage collector runs (the node lifecycle
 * controller and the scheduler: NodeLeasesIT); RBAC refuses a ServiceAccount nothing was granted
 * to; a stop and start keeps every object.
 */
@Timeout(value = 10, unit = java.util.concurrent.TimeUnit.MINUTES)
class LocalKubernetesIT {
  /** The smallest pod template a NodeSet takes. */
  static final Map<String, Object> TEMPLATE =
      Map.of(
          "spec",
          Map.of("containers", java.util.List.of(Map.of("name", "slurmd", "image", "slurmd:v1"))));

  private static LocalKubernetes kube;
  private static KubernetesClient client;

  @BeforeAll
  static void start() throws Exception {
    kube = SharedKubernetes.get();
    client = kube.adminClient();
    kube.installNodeSetCrd(client);
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      client.close();
    }
  }

  @Test
  void answersWithThePinnedRelease() throws Exception {
    String goMod =
        Files.readString(
            dev.tandem.slurm.local.LocalSlurmScript.find(System.getenv())
                .resolveSibling("kube-local/go.mod"));
    Matcher m = Pattern.compile("k8s.io/kubernetes (v[0-9.]+)").matcher(goMod);
    assertTrue(m.find(), "no k8s.io/kubernetes version in scripts/kube-local/go.mod");
    assertEquals(m.group(1), client.getKubernetesVersion().getGitVersion());
  }

  @Test
  void theCrdRefusesBadNodeSetsWithTheApiServersMessages() throws Exception {
    KubernetesClientException negative =
        assertThrows(
            KubernetesClientException.class,
            () -> create(nodeSet("negative", Map.of("replicas", -1, "template", TEMPLATE))));
    assertEquals(422, negative.getCode());
    assertContains(negative.getMessage(), "spec.replicas");
    assertContains(negative.getMessage(), "should be greater than or equal to 0");
    KubernetesClientException force =
        assertThrows(
            KubernetesClientException.class,
            () ->
                create(
                    nodeSet(
                        "force-without-timeout",
                        Map.of(
                            "replicas",
                            1,
                            "template",
                            TEMPLATE,
                            "scaleDown",
                            Map.of("onTimeout", "Force")))));
    assertContains(force.getMessage(), "onTimeout Force needs a timeout");

    GenericKubernetesResource good =
        create(nodeSet("good", Map.of("replicas", 2, "template", TEMPLATE)));
    assertFalse(good.getMetadata().getUid().isBlank());
  }

  @Test
  void kubectlExplainsNodeSetsAndPrintsTheirColumns() throws Exception {
    create(nodeSet("columns", Map.of("replicas", 3, "template", TEMPLATE)));
    String explain = kubectl("explain", "nodeset.spec.replicas");
    assertContains(explain, "Number of Slurm nodes");
    String table = kubectl("get", "nodesets", "-n", "default", "columns");
    assertContains(table, "REPLICAS");
    assertContains(table, "READY");
    assertTrue(
        table.lines().anyMatch(l -> l.startsWith("columns") && l.contains(" 3 ")),
        "the Replicas column shows spec.replicas: " + table);
  }

  private static String kubectl(String... args) throws Exception {
    java.util.List<String> cmd = new java.util.ArrayList<>();
    cmd.add(kube.kubectl().toString());
    cmd.add("--kubeconfig");
    cmd.add(kube.kubeconfig().toString());
    cmd.addAll(java.util.List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out =
        new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS), "kubectl did not end");
    assertEquals(0, p.exitValue(), "kubectl " + String.join(" ", args) + ": " + out);
    return out;
  }

  @Test
  void theGarbageCollectorDeletesDependents() {
    ConfigMap owner =
        client
            .configMaps()
            .inNamespace("default")
            .resource(
                new ConfigMapBuilder().withNewMetadata().withName("owner").endMetadata().build())
            .create();
    client
        .configMaps()
        .inNamespace("default")
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("dependent")
                .addNewOwnerReference()
                .withApiVersion("v1")
                .withKind("ConfigMap")
                .withName("owner")
                .withUid(owner.getMetadata().getUid())
                .endOwnerReference()
                .endMetadata()
                .build())
        .create();
    client.configMaps().inNamespace("default").withName("owner").delete();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> client.configMaps().inNamespace("default").withName("dependent").get() == null);
  }

  @Test
  void rbacRefusesAServiceAccountWithoutGrants() throws Exception {
    client
        .serviceAccounts()
        .inNamespace("default")
        .resource(
            new ServiceAccountBuilder().withNewMetadata().withName("nobody").endMetadata().build())
        .create();
    String token =
        client
            .serviceAccounts()
            .inNamespace("default")
            .withName("nobody")
            .tokenRequest(
                new TokenRequestBuilder()
                    .withNewSpec()
                    .withExpirationSeconds(600L)
                    .endSpec()
                    .build())
            .getStatus()
            .getToken();
    Config admin = kube.adminConfig();
    Config asNobody =
        new ConfigBuilder()
            .withMasterUrl(admin.getMasterUrl())
            .withCaCertData(admin.getCaCertData())
            .withOauthToken(token)
            .build();
    try (KubernetesClient nobody = new KubernetesClientBuilder().withConfig(asNobody).build()) {
      KubernetesClientException e =
          assertThrows(
              KubernetesClientException.class, () -> nobody.pods().inNamespace("default").list());
      assertEquals(403, e.getCode());
      assertContains(e.getMessage(), "system:serviceaccount:default:nobody");
    }
    // The audit log names the refused request.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                Files.readAllLines(kube.auditLog()).stream()
                    .anyMatch(
                        l ->
                            l.contains("system:serviceaccount:default:nobody")
                                && l.contains("\"code\":403")));
  }

  @Test
  void aStopAndStartKeepsEveryObject() throws Exception {
    client
        .configMaps()
        .inNamespace("default")
        .resource(new ConfigMapBuilder().withNewMetadata().withName("kept").endMetadata().build())
        .create();
    kube.stop();
    kube.start();
    try (KubernetesClient again = kube.adminClient()) {
      assertNotNull(again.configMaps().inNamespace("default").withName("kept").get());
    }
  }

  private static GenericKubernetesResource nodeSet(String name, Map<String, Object> spec) {
    GenericKubernetesResource r = new GenericKubernetesResource();
    r.setApiVersion("tandem.dev/v1alpha1");
    r.setKind("NodeSet");
    r.setMetadata(
        new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
            .withName(name)
            .withNamespace("default")
            .build());
    r.setAdditionalProperty("spec", spec);
    return r;
  }

  private static GenericKubernetesResource create(GenericKubernetesResource r) {
    return dev.tandem.k8s.NodeSetResources.generic(client)
        .inNamespace("default")
        .resource(r)
        .create();
  }

  private static void assertContains(String text, String part) {
    assertTrue(text != null && text.contains(part), () -> "expected \"" + part + "\" in: " + text);
  }
}
