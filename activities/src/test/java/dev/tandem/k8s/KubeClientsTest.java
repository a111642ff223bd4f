package dev.tandem.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.fabric8.kubernetes.client.Config;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link KubeClients#withoutIdleRefresh}: a configuration with nothing to refresh is not reloaded
 * before every request ({@link Config#refresh()} is what fabric8's token interceptor calls then).
 */
class KubeClientsTest {
  @TempDir Path dir;

  private Config load(String user) throws Exception {
    String yaml =
        String.join(
            "\n",
            "apiVersion: v1",
            "kind: Config",
            "clusters:",
            "- name: c",
            "  cluster:",
            "    server: http://127.0.0.1:1",
            "contexts:",
            "- name: x",
            "  context:",
            "    cluster: c",
            "    user: u",
            "current-context: x",
            "users:",
            "- name: u",
            "  user: " + user,
            "");
    Path f = dir.resolve("kubeconfig");
    Files.writeString(f, yaml);
    return Config.fromKubeconfig(null, yaml, f.toString());
  }

  @Test
  void aKubeconfigWithoutCredentialsIsReloadedByFabric8OnEveryRefresh() throws Exception {
    // The cost this class removes: without it, every request re-reads and parses the file.
    Config c = load("{}");
    assertNotSame(c, c.refresh());
  }

  @Test
  void aKubeconfigWithoutCredentialsIsNotReloaded() throws Exception {
    Config c = KubeClients.withoutIdleRefresh(load("{}"));
    assertSame(c, c.refresh());
    assertEquals("http://127.0.0.1:1/", c.getMasterUrl());
  }

  @Test
  void clientCertificatesAreNotReloaded() throws Exception {
    Config c =
        KubeClients.withoutIdleRefresh(
            load("{client-certificate-data: Y2VydA==, client-key-data: a2V5}"));
    assertSame(c, c.refresh());
    assertEquals("Y2VydA==", c.getClientCertData());
  }

  @Test
  void aTokenKeepsFabric8sRefresh() throws Exception {
    Config c = load("{token: abc}");
    var ctx = c.getCurrentContext();
    assertSame(c, KubeClients.withoutIdleRefresh(c));
    assertSame(ctx, c.getCurrentContext());
  }

  @Test
  void anExecPluginKeepsFabric8sRefresh() throws Exception {
    Config c = load("{exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/false}}");
    var ctx = c.getCurrentContext();
    KubeClients.withoutIdleRefresh(c);
    assertSame(ctx, c.getCurrentContext());
    assertNotSame(c, c.refresh());
  }
}
