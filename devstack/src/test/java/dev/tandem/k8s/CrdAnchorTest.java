package dev.tandem.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.devstack.faults.ApiFaults;
import dev.tandem.devstack.faults.KubeApiProxy;
import dev.tandem.devstack.kube.LocalKubernetes;
import dev.tandem.devstack.kube.SharedKubernetes;
import dev.tandem.devstack.kube.TestNamespace;
import dev.tandem.slurm.testing.MutableClock;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The anchor's uid from the real API server, read through a fault proxy: the shared plane's CRD is
 * never deleted (every test class of the JVM uses it), so a failing read stands for an absent or
 * unreachable CRD.
 */
class CrdAnchorTest {
  static KubernetesClient admin;
  static KubeApiProxy proxy;
  static KubernetesClient proxied;
  static String uid;

  private final MutableClock clock = new MutableClock(Instant.parse("2025-01-01T00:00:00Z"));

  @BeforeAll
  static void connect() throws IOException {
    LocalKubernetes plane = SharedKubernetes.get();
    admin = plane.adminClient();
    plane.installNodeSetCrd(admin);
    uid =
        admin
            .apiextensions()
            .v1()
            .customResourceDefinitions()
            .withName(Owners.CRD_NAME)
            .get()
            .getMetadata()
            .getUid();
    proxy = KubeApiProxy.start(plane);
    proxied = new KubernetesClientBuilder().withConfig(proxy.config()).build();
  }

  @AfterAll
  static void disconnect() {
    if (proxy != null) {
      proxied.close();
      proxy.close();
      admin.close();
    }
  }

  @AfterEach
  void clearFaults() {
    proxy.faults().clear();
  }

  private static ApiFaults.Fault failCrdReads(int code) {
    return proxy
        .faults()
        .failMatching(ApiFaults.resource("customresourcedefinitions"), code, Duration.ofMinutes(1));
  }

  @Test
  void readsTheUidOnceAndAgainAfterItsTimeToLive() {
    CrdAnchor anchor = new CrdAnchor(proxied, clock);
    assertNull(anchor.cachedUid());
    assertEquals(uid, anchor.uid());
    assertEquals(uid, anchor.cachedUid());

    // Within its time to live the cached uid serves without a read; then it is read again.
    ApiFaults.Fault down = failCrdReads(503);
    clock.advance(CrdAnchor.TTL.minus(Duration.ofSeconds(1)));
    assertEquals(uid, anchor.uid());
    assertEquals(0, down.hits(), "not read");
    clock.advance(Duration.ofSeconds(1));
    CrdAnchor.Unavailable e = assertThrows(CrdAnchor.Unavailable.class, anchor::uid);
    assertTrue(e.getMessage().contains("HTTP 503"), e.getMessage());
    assertEquals(uid, anchor.cachedUid(), "the last uid read stays for cheap checks");
    down.cancel();
    assertEquals(uid, anchor.uid());
  }

  @Test
  void anAbsentCrdIsUnavailableNotAnAnswer() {
    failCrdReads(404);
    CrdAnchor anchor = new CrdAnchor(proxied, clock);
    CrdAnchor.Unavailable e = assertThrows(CrdAnchor.Unavailable.class, anchor::uid);
    assertTrue(e.getMessage().contains("nodesets.tandem.dev does not exist"), e.getMessage());
    assertNull(anchor.cachedUid());
  }

  /** A ServiceAccount without RBAC: the API server itself refuses the read. */
  @Test
  void aForbiddenReadSaysWhatRbacIsMissing() {
    try (TestNamespace ns = TestNamespace.create(admin, "crd-anchor")) {
      String token =
          admin
              .serviceAccounts()
              .inNamespace(ns.name())
              .withName("default")
              .tokenRequest(
                  new TokenRequestBuilder()
                      .withNewSpec()
                      .withExpirationSeconds(600L)
                      .endSpec()
                      .build())
              .getStatus()
              .getToken();
      try (KubernetesClient unauthorized =
          new KubernetesClientBuilder()
              .withConfig(new ConfigBuilder(proxy.config()).withOauthToken(token).build())
              .build()) {
        CrdAnchor anchor = new CrdAnchor(unauthorized, clock);
        long injected = proxy.faults().injected();
        CrdAnchor.Unavailable e = assertThrows(CrdAnchor.Unavailable.class, anchor::uid);
        assertTrue(
            e.getMessage().contains("needs get on customresourcedefinitions"), e.getMessage());
        assertEquals(
            injected, proxy.faults().injected(), "refused by the API server, not the proxy");
      }
    }
  }
}
