package dev.tandem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.devstack.kube.LocalKubernetes;
import dev.tandem.devstack.kube.SharedKubernetes;
import dev.tandem.devstack.kube.TestNamespace;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the CLI writes shows as field manager {@code tandem} on the real API server, which derives
 * the manager from the User-Agent. (The worker's client: {@code KubernetesIdentityTest} in workers,
 * and the pods of {@code NodeSetDeletionE2EIT}.)
 */
class FieldManagerTest {

  @Test
  void theClisWritesAreManagedByTandem() throws Exception {
    LocalKubernetes kube = SharedKubernetes.get();
    try (KubernetesClient admin = kube.adminClient();
        TestNamespace ns = TestNamespace.create(admin, "field-manager");
        KubernetesClient k8s = PodLookup.kubernetes(kube.kubeconfig().toString())) {
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
    }
  }
}
