package dev.tandem.activities;

import dev.tandem.devstack.faults.KubeApiProxy;
import dev.tandem.devstack.kube.LocalKubernetes;
import dev.tandem.devstack.kube.SharedKubernetes;
import dev.tandem.devstack.kube.TestNamespace;
import dev.tandem.k8s.Fixtures;
import dev.tandem.k8s.NodeSetResources;
import dev.tandem.k8s.Owners;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.IOException;

/**
 * The JVM's real control plane ({@link SharedKubernetes}) for one test class of the Kubernetes
 * activities: the NodeSet CRD installed, an admin client ({@link #admin}) for the test's own reads
 * and writes, and a {@link KubeApiProxy} in front of the API server with a client through it
 * ({@link #proxied}) for the code under test, so that a test can inject faults and count requests.
 */
final class RealApi implements AutoCloseable {
  final LocalKubernetes plane;
  final KubernetesClient admin;
  final KubeApiProxy proxy;
  final KubernetesClient proxied;

  private RealApi(LocalKubernetes plane, KubernetesClient admin, KubeApiProxy proxy) {
    this.plane = plane;
    this.admin = admin;
    this.proxy = proxy;
    this.proxied = new KubernetesClientBuilder().withConfig(proxy.config()).build();
  }

  static RealApi start() throws IOException {
    LocalKubernetes plane = SharedKubernetes.get();
    KubernetesClient admin = plane.adminClient();
    plane.installNodeSetCrd(admin);
    return new RealApi(plane, admin, KubeApiProxy.start(plane));
  }

  /** The NodeSet CRD's uid: the anchor every pod carries as its second owner ({@link Owners}). */
  String crdUid() {
    return admin
        .apiextensions()
        .v1()
        .customResourceDefinitions()
        .withName(Owners.CRD_NAME)
        .get()
        .getMetadata()
        .getUid();
  }

  /** A namespace of one test's own; closing it lets go of its NodeSets first. */
  Namespace namespace() {
    return new Namespace(TestNamespace.create(admin, "kube-activities"));
  }

  /**
   * Creates NodeSet {@code ns/name} (if absent), the example's spec with these finalizers, and
   * returns its uid: pods are created only for a NodeSet that exists ({@code LiveOwner}).
   */
  String nodeSet(String ns, String name, String... finalizers) {
    var nodeSets = NodeSetResources.generic(admin).inNamespace(ns);
    var existing = nodeSets.withName(name).get();
    if (existing != null) {
      return existing.getMetadata().getUid();
    }
    GenericKubernetesResource r = Fixtures.exampleResource();
    r.setMetadata(
        new ObjectMetaBuilder()
            .withName(name)
            .withNamespace(ns)
            .withFinalizers(finalizers)
            .build());
    return nodeSets.resource(r).create().getMetadata().getUid();
  }

  /** Requests the proxy has received so far. */
  long requests() {
    return proxy.requests();
  }

  @Override
  public void close() {
    proxied.close();
    proxy.close();
    admin.close();
  }

  /**
   * A test's namespace. Closing it clears the finalizers of its NodeSets (none of them would go
   * otherwise: no Tandem worker runs) and deletes it.
   */
  final class Namespace implements AutoCloseable {
    private final TestNamespace namespace;
    final String name;

    private Namespace(TestNamespace namespace) {
      this.namespace = namespace;
      this.name = namespace.name();
    }

    @Override
    public void close() {
      var nodeSets = NodeSetResources.generic(admin).inNamespace(name);
      for (GenericKubernetesResource n : nodeSets.list().getItems()) {
        if (n.getMetadata().getFinalizers() != null && !n.getMetadata().getFinalizers().isEmpty()) {
          nodeSets
              .withName(n.getMetadata().getName())
              .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"finalizers\":null}}");
        }
      }
      namespace.close();
    }
  }
}
