package dev.tandem.devstack.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.k8s.KubeClients;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A kubeconfig whose user has {@code tokenFile:} (how a ServiceAccount token mounted into a pod, or
 * written by a deployment tool, is usually handed over) authenticates Tandem's clients as that
 * ServiceAccount on the real API server. fabric8 alone ignores the field and calls as {@code
 * system:anonymous}, which RBAC refuses.
 */
class KubeconfigTokenFileIT {
  private static final String NS = "default";
  private static LocalKubernetes kube;
  private static KubernetesClient admin;

  @TempDir Path dir;

  @BeforeAll
  static void start() throws Exception {
    kube = SharedKubernetes.get();
    admin = kube.adminClient();
    admin
        .serviceAccounts()
        .inNamespace(NS)
        .resource(
            new ServiceAccountBuilder().withNewMetadata().withName("reader").endMetadata().build())
        .createOr(e -> e.update());
    admin
        .rbac()
        .roles()
        .inNamespace(NS)
        .resource(
            new RoleBuilder()
                .withNewMetadata()
                .withName("pod-reader")
                .endMetadata()
                .withRules(
                    new PolicyRuleBuilder()
                        .withApiGroups("")
                        .withResources("pods")
                        .withVerbs("list")
                        .build())
                .build())
        .createOr(e -> e.update());
    admin
        .rbac()
        .roleBindings()
        .inNamespace(NS)
        .resource(
            new RoleBindingBuilder()
                .withNewMetadata()
                .withName("reader-reads-pods")
                .endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "Role", "pod-reader")
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName("reader")
                .withNamespace(NS)
                .endSubject()
                .build())
        .createOr(e -> e.update());
  }

  @AfterAll
  static void stop() {
    if (admin != null) {
      admin.close();
    }
  }

  @Test
  void aTokenFileAuthenticatesAsItsServiceAccount() throws Exception {
    Path token = dir.resolve("token");
    Files.writeString(token, tokenOf("reader"));
    Config config = kubeconfigWithTokenFile("token");

    try (KubernetesClient plain = new KubernetesClientBuilder().withConfig(config).build()) {
      KubernetesClientException e =
          assertThrows(KubernetesClientException.class, () -> plain.pods().inNamespace(NS).list());
      assertEquals(403, e.getCode(), "fabric8 alone ignores tokenFile");
      assertTrue(e.getMessage().contains("system:anonymous"), e.getMessage());
    }
    try (KubernetesClient tandem = KubeClients.build(kubeconfigWithTokenFile("token"))) {
      tandem.pods().inNamespace(NS).list(); // as system:serviceaccount:default:reader
      KubernetesClientException e =
          assertThrows(KubernetesClientException.class, () -> tandem.nodes().list());
      assertTrue(
          e.getMessage().contains("system:serviceaccount:default:reader"),
          "refused as the ServiceAccount, not anonymously: " + e.getMessage());
    }
  }

  @Test
  void aTokenFileThatCannotBeReadIsRefusedAtStart() throws Exception {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> KubeClients.build(kubeconfigWithTokenFile("missing-token")));
    assertTrue(e.getMessage().contains("missing-token"), e.getMessage());
  }

  private Config kubeconfigWithTokenFile(String tokenFile) throws Exception {
    Config adminConfig = kube.adminConfig();
    Path file = dir.resolve("kubeconfig");
    Files.writeString(
        file,
        "apiVersion: v1\nkind: Config\nclusters:\n- name: local\n  cluster:\n    server: "
            + adminConfig.getMasterUrl()
            + "\n    certificate-authority-data: "
            + adminConfig.getCaCertData()
            + "\nusers:\n- name: reader\n  user:\n    tokenFile: "
            + tokenFile
            + "\ncontexts:\n- name: local\n  context: {cluster: local, user: reader}\n"
            + "current-context: local\n");
    return Config.fromKubeconfig(null, Files.readString(file), file.toString());
  }

  private static String tokenOf(String serviceAccount) {
    return admin
        .serviceAccounts()
        .inNamespace(NS)
        .withName(serviceAccount)
        .tokenRequest(
            new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L).endSpec().build())
        .getStatus()
        .getToken();
  }
}
