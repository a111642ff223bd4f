package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A replica whose calls the real API server refuses says so, leader or not: {@link
 * KubernetesAccess} (what {@code /readyz} and {@code tandem_kubernetes_up} read) reports a 403 for
 * a ServiceAccount without the chart's grants and a 401 for a token the server does not accept, and
 * lets the replica in once the grant exists.
 */
@ExtendWith(KubeNamespace.class)
class KubernetesAccessIT {
  private static final Duration PROBE = Duration.ofSeconds(5);
  static KubernetesClient admin;

  /** The cluster-wide grant's ClusterRole and binding: of this test's namespace, so unique. */
  private String grant;

  @BeforeEach
  void start() {
    grant = "read-nodesets-" + admin.getNamespace();
    admin
        .serviceAccounts()
        .resource(
            new ServiceAccountBuilder().withNewMetadata().withName("worker").endMetadata().build())
        .create();
  }

  @AfterEach
  void stop() {
    admin.rbac().clusterRoleBindings().withName(grant).delete();
    admin.rbac().clusterRoles().withName(grant).delete();
  }

  private static String check(String token, SimpleMeterRegistry registry) throws Exception {
    Config a = admin.getConfiguration();
    Config config =
        new ConfigBuilder()
            .withMasterUrl(a.getMasterUrl())
            .withCaCertData(a.getCaCertData())
            .withOauthToken(token)
            .withRequestRetryBackoffLimit(0)
            .build();
    KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build();
    try (KubernetesAccess access =
        new KubernetesAccess(
            new KubernetesProbe(client, PROBE), PROBE, new WatcherMetrics(registry))) {
      access.checkOnce();
      assertNotNull(access.latest());
      return access.refused();
    } finally {
      client.close();
    }
  }

  private static double up(SimpleMeterRegistry registry) {
    return registry.get("tandem.kubernetes.up").gauge().value();
  }

  @Test
  void refusedCallsAreReportedWithWhatTheServerAnswered() throws Exception {
    String token =
        admin
            .serviceAccounts()
            .withName("worker")
            .tokenRequest(
                new TokenRequestBuilder()
                    .withNewSpec()
                    .withExpirationSeconds(600L)
                    .endSpec()
                    .build())
            .getStatus()
            .getToken();

    SimpleMeterRegistry forbidden = new SimpleMeterRegistry();
    String why = check(token, forbidden);
    assertNotNull(why, "a ServiceAccount without grants is refused");
    assertTrue(why.contains("403"), why);
    assertTrue(why.contains("system:serviceaccount:" + admin.getNamespace() + ":worker"), why);
    assertEquals(0.0, up(forbidden));

    SimpleMeterRegistry unauthorized = new SimpleMeterRegistry();
    String bad = check("not-a-token", unauthorized);
    assertNotNull(bad, "a token the server does not accept is refused");
    assertTrue(bad.contains("401"), bad);
    assertEquals(0.0, up(unauthorized));

    admin
        .rbac()
        .clusterRoles()
        .resource(
            new ClusterRoleBuilder()
                .withNewMetadata()
                .withName(grant)
                .endMetadata()
                .withRules(
                    new PolicyRuleBuilder()
                        .withApiGroups("tandem.dev")
                        .withResources("nodesets")
                        .withVerbs("list")
                        .build())
                .build())
        .create();
    admin
        .rbac()
        .clusterRoleBindings()
        .resource(
            new ClusterRoleBindingBuilder()
                .withNewMetadata()
                .withName(grant)
                .endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", grant)
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName("worker")
                .withNamespace(admin.getNamespace())
                .endSubject()
                .build())
        .create();
    SimpleMeterRegistry granted = new SimpleMeterRegistry();
    // RBAC's cache follows the binding within moments; bounded.
    String after = null;
    for (int i = 0; i < 50; i++) {
      after = check(token, granted);
      if (after == null) {
        break;
      }
      Thread.sleep(200);
    }
    assertNull(after, "let in once the grant exists");
    assertEquals(1.0, up(granted));
  }
}
