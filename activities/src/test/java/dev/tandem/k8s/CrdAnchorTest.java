package dev.tandem.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.testing.MutableClock;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The anchor's uid against fabric8's mock API server (CRUD mode: it assigns uids). */
@EnableKubernetesMockClient(crud = true)
class CrdAnchorTest {
  static KubernetesMockServer server;
  static KubernetesClient client;

  private final MutableClock clock = new MutableClock(Instant.parse("2025-01-01T00:00:00Z"));

  private String installCrd() {
    return client
        .apiextensions()
        .v1()
        .customResourceDefinitions()
        .resource(Fixtures.crd())
        .create()
        .getMetadata()
        .getUid();
  }

  private void deleteCrd() {
    client.apiextensions().v1().customResourceDefinitions().withName(Owners.CRD_NAME).delete();
  }

  @Test
  void readsTheUidOnceAndAgainAfterItsTimeToLive() {
    String first = installCrd();
    try {
      assertNotNull(first, "the mock assigns uids");
      CrdAnchor anchor = new CrdAnchor(client, clock);
      assertNull(anchor.cachedUid());
      assertEquals(first, anchor.uid());
      assertEquals(first, anchor.cachedUid());

      // The CRD is re-created (new uid): the cached uid serves until it is too old.
      deleteCrd();
      String second = installCrd();
      assertNotEquals(first, second);
      clock.advance(CrdAnchor.TTL.minus(Duration.ofSeconds(1)));
      assertEquals(first, anchor.uid());
      clock.advance(Duration.ofSeconds(1));
      assertEquals(second, anchor.uid());
    } finally {
      deleteCrd();
    }
  }

  @Test
  void anAbsentCrdIsUnavailableNotAnAnswer() {
    CrdAnchor anchor = new CrdAnchor(client, clock);
    CrdAnchor.Unavailable e = assertThrows(CrdAnchor.Unavailable.class, anchor::uid);
    assertTrue(e.getMessage().contains("nodesets.tandem.dev does not exist"), e.getMessage());
    assertNull(anchor.cachedUid());
  }

  @Test
  void aForbiddenReadSaysWhatRbacIsMissing() {
    server
        .expect()
        .get()
        .withPath("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/nodesets.tandem.dev")
        .andReturn(403, new StatusBuilder().withCode(403).withMessage("forbidden").build())
        .once();
    CrdAnchor anchor = new CrdAnchor(client, clock);
    CrdAnchor.Unavailable e = assertThrows(CrdAnchor.Unavailable.class, anchor::uid);
    assertTrue(e.getMessage().contains("needs get on customresourcedefinitions"), e.getMessage());
  }
}
