package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.k8s.NodeSetResources;
import dev.tandem.k8s.Owners;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Slurmd pods made by an older Tandem (the NodeSet as their only owner) get the anchor from the
 * watchers as wired in a worker ({@link Watching}), against the real API server. Pods that are not
 * a NodeSet's are left alone.
 */
@ExtendWith(KubeNamespace.class)
class PodAnchorsTest {
  static KubernetesClient client;

  private Replica replica;
  private String nodeSetUid;
  private String crdUid;

  @BeforeEach
  void start() throws Exception {
    crdUid =
        client
            .apiextensions()
            .v1()
            .customResourceDefinitions()
            .withName(Owners.CRD_NAME)
            .get()
            .getMetadata()
            .getUid();
    nodeSetUid =
        NodeSetResources.generic(client)
            .resource(
                K8sObjects.nodeSet(
                    "gpu",
                    "  replicas: 3\n  template:\n    spec:\n      containers:\n"
                        + "      - name: slurmd\n        image: tandem/slurmd:22.05\n"))
            .create()
            .getMetadata()
            .getUid();
  }

  @AfterEach
  void stop() {
    if (replica != null) {
      replica.close();
    }
  }

  private Pod create(String name, List<OwnerReference> owners) {
    return client
        .pods()
        .resource(
            K8sObjects.slurmdPod(name, null)
                .editMetadata()
                .withOwnerReferences(owners)
                .endMetadata()
                .build())
        .create();
  }

  private List<OwnerReference> owners(String pod) {
    return client.pods().withName(pod).get().getMetadata().getOwnerReferences();
  }

  @Test
  void olderPodsGetTheAnchorOthersAreLeftAlone() {
    Pod stray = create("stray-0", List.of());
    Pod anchored = create("gpu-1", Owners.of("gpu", nodeSetUid, crdUid));
    create("gpu-0", List.of(Owners.nodeSet("gpu", nodeSetUid)));

    replica = new Replica(client.getConfiguration(), "a");
    replica.watchers.startWatching();
    Wait.until("watching", replica::watching);
    Wait.until(
        "gpu-0 anchored", () -> owners("gpu-0").equals(Owners.of("gpu", nodeSetUid, crdUid)));

    // A pod an older replica creates while this one watches gets it too.
    create("gpu-2", List.of(Owners.nodeSet("gpu", nodeSetUid)));
    Wait.until(
        "gpu-2 anchored", () -> owners("gpu-2").equals(Owners.of("gpu", nodeSetUid, crdUid)));

    assertTrue(owners("stray-0").isEmpty(), "a pod no NodeSet controls is not Tandem's");
    assertEquals(
        stray.getMetadata().getResourceVersion(),
        client.pods().withName("stray-0").get().getMetadata().getResourceVersion());
    assertEquals(
        anchored.getMetadata().getResourceVersion(),
        client.pods().withName("gpu-1").get().getMetadata().getResourceVersion(),
        "a pod that has its anchor is not written");
  }
}
