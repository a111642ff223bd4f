package dev.tandem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.devstack.api.LocalApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the CLI writes shows as field manager {@code tandem} on the local API, which derives the
 * manager from the User-Agent as a real API server does. (The worker's client: {@code
 * KubernetesIdentityTest} in workers, and the pods of {@code NodeSetDeletionE2EIT}.)
 */
class FieldManagerTest {
  @TempDir Path tmp;

  @Test
  void theClisWritesAreManagedByTandem() throws Exception {
    try (LocalApiServer api = LocalApiServer.start(0)) {
      Path kubeconfig = api.writeKubeconfig(tmp.resolve("kubeconfig"));
      try (KubernetesClient k8s = PodLookup.kubernetes(kubeconfig.toString())) {
        ConfigMap cm =
            k8s.configMaps()
                .inNamespace("default")
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
      }
    }
  }
}
