package dev.tandem.devstack.kube;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.tandem.activities.KubeActivitiesImpl;
import dev.tandem.k8s.NodeSetResources;
import dev.tandem.k8s.Owners;
import dev.tandem.k8s.PodLabels;
import dev.tandem.k8s.api.NodeSet;
import dev.tandem.workflows.model.NodeSetRef;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * No PodDisruptionBudget outlives its NodeSet, whatever the cascade. The real garbage collector
 * strips a deleted NodeSet's reference from its budget when the budget has another owner (the CRD
 * anchor) or is orphaned; the NodeSet's finalizer, released once its nodes are gone, must still
 * delete it. The budget is written as the Kubernetes watcher writes it ({@code SlurmJobsBudget}):
 * Tandem's labels, the NodeSet as a non-blocking controller owner, and a second owner standing for
 * the CRD anchor.
 */
class NodeSetBudgetCascadeIT {
  private static LocalKubernetes kube;
  private static KubernetesClient client;

  @BeforeAll
  static void start() throws Exception {
    kube = SharedKubernetes.get();
    client = kube.adminClient();
    kube.installNodeSetCrd(client);
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      client.close();
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = DeletionPropagation.class,
      names = {"FOREGROUND", "ORPHAN", "BACKGROUND"})
  void theBudgetGoesWithItsNodeSet(DeletionPropagation cascade) {
    String name = "cascade-" + cascade.name().toLowerCase(java.util.Locale.ROOT);
    NodeSetRef ref = new NodeSetRef("default", name);
    GenericKubernetesResource set = new GenericKubernetesResource();
    set.setApiVersion("tandem.dev/v1alpha1");
    set.setKind(NodeSet.KIND);
    set.setMetadata(
        new ObjectMetaBuilder()
            .withName(name)
            .withNamespace("default")
            .withFinalizers(NodeSet.FINALIZER)
            .build());
    set.setAdditionalProperty(
        "spec", Map.of("replicas", 0, "template", LocalKubernetesIT.TEMPLATE));
    set = NodeSetResources.generic(client).inNamespace("default").resource(set).create();
    // Stands for the CRD anchor: an owner that outlives the NodeSet.
    var anchor =
        client
            .configMaps()
            .inNamespace("default")
            .resource(
                new ConfigMapBuilder()
                    .withNewMetadata()
                    .withName(name + "-anchor")
                    .endMetadata()
                    .build())
            .create();
    OwnerReference anchorRef =
        new OwnerReferenceBuilder()
            .withApiVersion("v1")
            .withKind("ConfigMap")
            .withName(anchor.getMetadata().getName())
            .withUid(anchor.getMetadata().getUid())
            .build();
    PodDisruptionBudget pdb =
        new PodDisruptionBudgetBuilder()
            .withNewMetadata()
            .withName(PodLabels.budgetName(name))
            .withLabels(
                Map.of(PodLabels.MANAGED_BY, PodLabels.MANAGED_BY_VALUE, PodLabels.NODESET, name))
            .withOwnerReferences(
                List.of(
                    new OwnerReferenceBuilder(Owners.nodeSet(name, set.getMetadata().getUid()))
                        .withBlockOwnerDeletion(false)
                        .build(),
                    anchorRef))
            .endMetadata()
            .withNewSpec()
            .withMaxUnavailable(new IntOrString(0))
            .withNewSelector()
            .withMatchLabels(Map.of(PodLabels.NODESET, name))
            .endSelector()
            .endSpec()
            .build();
    client.policy().v1().podDisruptionBudget().inNamespace("default").resource(pdb).create();

    NodeSetResources.generic(client)
        .inNamespace("default")
        .withName(name)
        .withPropagationPolicy(cascade)
        .delete();
    if (cascade != DeletionPropagation.BACKGROUND) {
      // The garbage collector strips the NodeSet's reference while the finalizer holds the NodeSet.
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  budget(name).getMetadata().getOwnerReferences().stream()
                      .noneMatch(o -> NodeSet.KIND.equals(o.getKind())));
    }
    assertNotNull(budget(name), "the budget stays while the NodeSet's nodes drain");

    new KubeActivitiesImpl(client, Clock.systemUTC()).releaseNodeSet(ref);

    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                NodeSetResources.generic(client).inNamespace("default").withName(name).get()
                    == null);
    assertNull(budget(name), "the budget outlived its NodeSet");
  }

  private static PodDisruptionBudget budget(String name) {
    return client
        .policy()
        .v1()
        .podDisruptionBudget()
        .inNamespace("default")
        .withName(PodLabels.budgetName(name))
        .get();
  }
}
