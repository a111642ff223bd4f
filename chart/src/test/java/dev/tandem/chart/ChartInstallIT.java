package dev.tandem.chart;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.Release;
import dev.tandem.devstack.kube.LocalKubernetes;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code helm install}, {@code helm upgrade} and {@code helm uninstall} of {@code helm/tandem} into
 * the real control plane ({@code scripts/kube-local.sh}) with helm-java, with the least values a
 * user sets (an external Temporal and slurmrestd, {@code ci/minimal-values.yaml}): the CRD, the
 * ServiceAccount, the RBAC and the Deployment are created as the chart says, an upgrade changes the
 * Deployment, and an uninstall removes the release but leaves the CRD and the NodeSets, as
 * docs/install.md says.
 */
class ChartInstallIT {
  private static final String NS = "tandem";
  private static LocalKubernetes kube;
  private static KubernetesClient client;

  @BeforeAll
  static void start() throws Exception {
    kube = LocalKubernetes.startTemporary();
    client = kube.adminClient();
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      client.close();
    }
    if (kube != null) {
      kube.close();
    }
  }

  @Test
  void installUpgradeAndUninstall() {
    Release installed =
        new Helm(Chart.DIR)
            .install()
            .withName("tandem")
            .withNamespace(NS)
            .createNamespace()
            .withKubeConfig(kube.kubeconfig())
            .withValuesFile(Chart.DIR.resolve("ci/minimal-values.yaml"))
            .call();
    assertEquals("deployed", installed.getStatus());

    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              var crd =
                  client
                      .apiextensions()
                      .v1()
                      .customResourceDefinitions()
                      .withName("nodesets.tandem.dev")
                      .get();
              return crd != null
                  && crd.getStatus().getConditions().stream()
                      .anyMatch(
                          c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
            });
    String sa =
        client
            .apps()
            .deployments()
            .inNamespace(NS)
            .withName("tandem")
            .get()
            .getSpec()
            .getTemplate()
            .getSpec()
            .getServiceAccountName();
    assertNotNull(
        client.serviceAccounts().inNamespace(NS).withName(sa).get(), "ServiceAccount " + sa);
    assertTrue(
        client.rbac().clusterRoleBindings().list().getItems().stream()
            .anyMatch(
                b ->
                    b.getSubjects() != null
                        && b.getSubjects().stream()
                            .anyMatch(s -> sa.equals(s.getName()) && NS.equals(s.getNamespace()))),
        "a ClusterRoleBinding for the worker's ServiceAccount");
    assertEquals(2, deployment().getSpec().getReplicas());

    GenericKubernetesResource set = new GenericKubernetesResource();
    set.setApiVersion("tandem.dev/v1alpha1");
    set.setKind("NodeSet");
    set.setMetadata(new ObjectMetaBuilder().withName("kept").withNamespace("default").build());
    set.setAdditionalProperty(
        "spec",
        Map.of(
            "replicas",
            1,
            "template",
            Map.of("spec", Map.of("containers", List.of(Map.of("name", "slurmd", "image", "x"))))));
    dev.tandem.k8s.NodeSetResources.generic(client).inNamespace("default").resource(set).create();

    Release upgraded =
        new Helm(Chart.DIR)
            .upgrade()
            .withName("tandem")
            .withNamespace(NS)
            .withKubeConfig(kube.kubeconfig())
            .withValuesFile(Chart.DIR.resolve("ci/minimal-values.yaml"))
            .set("replicaCount", 3)
            .call();
    assertEquals("deployed", upgraded.getStatus());
    assertEquals("2", upgraded.getRevision());
    assertEquals(3, deployment().getSpec().getReplicas());

    Helm.uninstall("tandem").withNamespace(NS).withKubeConfig(kube.kubeconfig()).call();
    await().atMost(Duration.ofSeconds(60)).until(() -> deployment() == null);
    assertTrue(
        client.rbac().clusterRoleBindings().list().getItems().stream()
            .noneMatch(
                b ->
                    b.getSubjects() != null
                        && b.getSubjects().stream().anyMatch(s -> NS.equals(s.getNamespace()))),
        "the release's ClusterRoleBinding is gone");
    assertNotNull(
        client
            .apiextensions()
            .v1()
            .customResourceDefinitions()
            .withName("nodesets.tandem.dev")
            .get(),
        "the CRD stays (Helm leaves crds/ in place)");
    assertNotNull(
        dev.tandem.k8s.NodeSetResources.generic(client)
            .inNamespace("default")
            .withName("kept")
            .get(),
        "the NodeSets stay");
  }

  private static Deployment deployment() {
    return client.apps().deployments().inNamespace(NS).withName("tandem").get();
  }

  /**
   * The Slurm control plane's objects with accounting (ci/slurm-values.yaml), hooks included, are
   * accepted by the real API server (server-side dry run): the accounting Job's munged sidecar (an
   * init container with restartPolicy Always) among them. Images cannot run here, so nothing
   * starts.
   */
  @Test
  void theSlurmControlPlaneWithAccountingIsAcceptedByTheApiServer(@TempDir Path tmp) {
    String ns = "tandem-slurm-dry";
    client
        .namespaces()
        .resource(
            new io.fabric8.kubernetes.api.model.NamespaceBuilder()
                .withNewMetadata()
                .withName(ns)
                .endMetadata()
                .build())
        .serverSideApply();
    List<HasMetadata> objects = new java.util.ArrayList<>();
    objects.addAll(Chart.render(Chart.DIR.resolve("ci/slurm-values.yaml"), Map.of()));
    objects.addAll(Chart.renderHooks(tmp, Chart.DIR.resolve("ci/slurm-values.yaml"), Map.of()));
    List<String> accepted = new java.util.ArrayList<>();
    for (HasMetadata o : objects) {
      if (o.getMetadata().getNamespace() == null
          || o
              instanceof
              io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition) {
        continue;
      }
      o.getMetadata().setNamespace(ns);
      client.resource(o).inNamespace(ns).dryRun().create();
      accepted.add(o.getKind() + "/" + o.getMetadata().getName());
    }
    assertTrue(accepted.contains("Job/tandem-slurm-accounting"), accepted.toString());
    assertTrue(accepted.contains("Deployment/tandem-slurmdbd"), accepted.toString());
  }
}
