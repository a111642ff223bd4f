package dev.tandem.devstack.faults;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.devstack.kube.LocalKubernetes;
import dev.tandem.devstack.kube.SharedKubernetes;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fault proxy in front of the real API server: it passes, fails, delays and drops on cue. */
class KubeApiProxyIT {
  private static final String NS = "kube-api-proxy-it";
  private static LocalKubernetes kube;
  private static KubernetesClient admin;
  private static KubeApiProxy proxy;
  private static KubernetesClient client;

  @BeforeAll
  static void start() throws Exception {
    kube = SharedKubernetes.get();
    admin = kube.adminClient();
    admin
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
        .createOr(e -> e.update());
    proxy = KubeApiProxy.start(kube);
    client =
        new KubernetesClientBuilder()
            .withConfig(new ConfigBuilder(proxy.config()).withNamespace(NS).build())
            .build();
  }

  @AfterEach
  void clear() {
    proxy.faults().clear();
  }

  @AfterAll
  static void stop() {
    client.close();
    proxy.close();
    admin.namespaces().withName(NS).delete();
    admin.close();
  }

  @Test
  void passesRequestsThroughAsTheAdmin() {
    client.configMaps().resource(map("passed")).create();
    assertNotNull(admin.configMaps().inNamespace(NS).withName("passed").get());
    assertTrue(client.nodes().list().getItems().size() >= 0, "cluster-scoped reads pass");
  }

  @Test
  void failsMatchingRequestsWithoutReachingTheServer() {
    ApiFaults.Fault f =
        proxy.faults().failMatching(ApiFaults.writesTo("configmaps"), 409, Duration.ofMinutes(1));
    KubernetesClientException e =
        assertThrows(
            KubernetesClientException.class,
            () -> client.configMaps().resource(map("refused")).create());
    assertEquals(409, e.getCode());
    assertTrue(e.getMessage().contains("fault injected"), e.getMessage());
    assertEquals(null, admin.configMaps().inNamespace(NS).withName("refused").get());
    assertNotNull(client.configMaps().list(), "reads are not writes");
    assertEquals(1, f.hits());

    proxy.faults().failAll(503, Duration.ofMinutes(1));
    assertEquals(
        503,
        assertThrows(KubernetesClientException.class, () -> client.namespaces().list()).getCode());
  }

  @Test
  void delaysAnswers() {
    proxy
        .faults()
        .delayMatching(
            ApiFaults.resource("configmaps"), Duration.ofMillis(1500), Duration.ofMinutes(1));
    long t0 = System.nanoTime();
    client.configMaps().list();
    assertTrue(System.nanoTime() - t0 >= Duration.ofMillis(1500).toNanos(), "held back");
  }

  /** Through a kubeconfig, as the worker reaches it: a WebSocket watch falls back to HTTP. */
  @Test
  void watchesStreamAndCanBeDropped(@TempDir Path dir) throws Exception {
    Path kubeconfig = proxy.writeKubeconfig(dir.resolve("kubeconfig"));
    try (KubernetesClient viaKubeconfig =
        new KubernetesClientBuilder()
            .withConfig(Config.fromKubeconfig(null, Files.readString(kubeconfig), null))
            .build()) {
      watch(viaKubeconfig.configMaps().inNamespace(NS));
    }
  }

  private static void watch(
      io.fabric8.kubernetes.client.dsl.NonNamespaceOperation<
              ConfigMap,
              io.fabric8.kubernetes.api.model.ConfigMapList,
              io.fabric8.kubernetes.client.dsl.Resource<ConfigMap>>
          maps) {
    List<String> seen = new CopyOnWriteArrayList<>();
    AtomicInteger closed = new AtomicInteger();
    try (var w =
        maps.watch(
            new Watcher<ConfigMap>() {
              @Override
              public void eventReceived(Action action, ConfigMap cm) {
                seen.add(action + " " + cm.getMetadata().getName());
              }

              @Override
              public void onClose(WatcherException cause) {
                closed.incrementAndGet();
              }
            })) {
      admin.configMaps().inNamespace(NS).resource(map("before-drop")).create();
      await().atMost(Duration.ofSeconds(20)).until(() -> seen.contains("ADDED before-drop"));
      long requests = proxy.requests();
      proxy.faults().dropWatches();
      // fabric8 reconnects a dropped watch: the next event still arrives, on a new request.
      admin.configMaps().inNamespace(NS).resource(map("after-drop")).create();
      await().atMost(Duration.ofSeconds(30)).until(() -> seen.contains("ADDED after-drop"));
      assertTrue(proxy.requests() > requests, "the watch was opened again");
    }
  }

  @Test
  void aCallerWithItsOwnTokenIsAuthorizedAsItself() {
    admin
        .serviceAccounts()
        .inNamespace(NS)
        .resource(
            new ServiceAccountBuilder().withNewMetadata().withName("nobody").endMetadata().build())
        .createOr(e -> e.update());
    String token =
        admin
            .serviceAccounts()
            .inNamespace(NS)
            .withName("nobody")
            .tokenRequest(
                new TokenRequestBuilder()
                    .withNewSpec()
                    .withExpirationSeconds(600L)
                    .endSpec()
                    .build())
            .getStatus()
            .getToken();
    try (KubernetesClient nobody =
        new KubernetesClientBuilder()
            .withConfig(new ConfigBuilder(proxy.config()).withOauthToken(token).build())
            .build()) {
      KubernetesClientException e =
          assertThrows(
              KubernetesClientException.class, () -> nobody.configMaps().inNamespace(NS).list());
      assertEquals(403, e.getCode());
      assertTrue(
          e.getMessage().contains("system:serviceaccount:" + NS + ":nobody"), e.getMessage());
    }
  }

  private static ConfigMap map(String name) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .addToData("k", "v")
        .build();
  }
}
