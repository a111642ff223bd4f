package dev.tandem.workers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.k8s.KubeClients;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The worker's Kubernetes client (the one its activities, watchers and leader election use) says
 * {@code User-Agent: tandem/<version>}: an API server names the field manager of its writes after
 * it ({@code tandem}), where fabric8's default would show {@code fabric8-kubernetes-client}.
 */
@EnableKubernetesMockClient(crud = true)
class KubernetesIdentityTest {
  static KubernetesMockServer server;
  static KubernetesClient client;

  @TempDir Path tmp;

  @Test
  void theWorkersClientSendsTandemsUserAgent() throws Exception {
    Path kubeconfig = tmp.resolve("kubeconfig");
    Files.writeString(
        kubeconfig,
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: "
            + client.getConfiguration().getMasterUrl()
            + "\n    insecure-skip-tls-verify: true\nusers:\n- name: u\n  user:\n    token: t\n"
            + "contexts:\n- name: x\n  context:\n    cluster: c\n    user: u\n"
            + "current-context: x\n");
    // Not started (and so not closed): only its Kubernetes client is wanted.
    TandemWorker w =
        new TandemWorker(
            Map.of(
                "KUBECONFIG", kubeconfig.toString(),
                "SLURM_REST_URL", "http://127.0.0.1:6820",
                "SLURM_REST_API", "v0.0.44",
                "SLURM_JWT", "token"));
    try (KubernetesClient k8s = w.get(KubernetesClient.class)) {
      k8s.pods().inNamespace("default").list();
      assertEquals(
          "tandem/" + KubeClients.VERSION, server.getLastRequest().getHeader("User-Agent"));
    }
  }
}
