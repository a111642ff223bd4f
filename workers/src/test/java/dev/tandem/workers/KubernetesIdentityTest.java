package dev.tandem.workers;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tandem.devstack.kube.LocalKubernetes;
import dev.tandem.devstack.kube.SharedKubernetes;
import dev.tandem.devstack.kube.TestNamespace;
import dev.tandem.k8s.KubeClients;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The worker's Kubernetes client (the one its activities, watchers and leader election use) says
 * {@code User-Agent: tandem/<version>}: the real API server records it (audit log) and names the
 * field manager of its writes after it ({@code tandem}), where fabric8's default would show {@code
 * fabric8-kubernetes-client}.
 */
class KubernetesIdentityTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void theWorkersClientSendsTandemsUserAgent() throws Exception {
    LocalKubernetes kube = SharedKubernetes.get();
    // Not started (and so not closed): only its Kubernetes client is wanted.
    TandemWorker w =
        new TandemWorker(
            Map.of(
                "KUBECONFIG", kube.kubeconfig().toString(),
                "SLURM_REST_URL", "http://127.0.0.1:6820",
                "SLURM_REST_API", "v0.0.44",
                "SLURM_JWT", "token"));
    try (KubernetesClient admin = kube.adminClient();
        TestNamespace ns = TestNamespace.create(admin, "identity");
        KubernetesClient k8s = w.get(KubernetesClient.class)) {
      ConfigMap cm =
          k8s.configMaps()
              .inNamespace(ns.name())
              .resource(
                  new ConfigMapBuilder()
                      .withNewMetadata()
                      .withName("probe")
                      .endMetadata()
                      .addToData("a", "b")
                      .build())
              .create();
      assertEquals(
          List.of("tandem"),
          cm.getMetadata().getManagedFields().stream()
              .map(ManagedFieldsEntry::getManager)
              .toList());
      JsonNode event =
          await()
              .atMost(Duration.ofSeconds(10))
              .until(() -> creation(kube, ns.name()), e -> e != null);
      assertEquals("tandem/" + KubeClients.VERSION, event.path("userAgent").asText());
    }
  }

  /**
   * The audit event of ConfigMap {@code probe}'s creation in {@code ns}, or null while there is
   * none.
   */
  private static JsonNode creation(LocalKubernetes kube, String ns) throws IOException {
    try (var lines = Files.lines(kube.auditLog())) {
      for (String l : (Iterable<String>) lines.filter(l -> l.contains(ns))::iterator) {
        JsonNode e = JSON.readTree(l);
        JsonNode ref = e.path("objectRef");
        if ("create".equals(e.path("verb").asText())
            && "configmaps".equals(ref.path("resource").asText())
            && ns.equals(ref.path("namespace").asText())
            && "probe".equals(ref.path("name").asText())) {
          return e;
        }
      }
      return null;
    }
  }
}
