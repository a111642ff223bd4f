package dev.tandem.activities;

import dev.tandem.k8s.Fixtures;
import dev.tandem.k8s.Owners;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.util.concurrent.atomic.AtomicInteger;

/** Helpers for tests against fabric8's mock API server. */
final class MockApi {
  private MockApi() {}

  private static final AtomicInteger NAMESPACES = new AtomicInteger();

  /**
   * A client for the same server without fabric8's own retries of 5xx answers (10 by default, with
   * exponential backoff: ~20 s per failing call). Activities leave retrying to Temporal, and tests
   * stay fast; the workers' client should be configured the same way.
   */
  static KubernetesClient withoutRetries(KubernetesClient mockClient) {
    return new KubernetesClientBuilder()
        .withConfig(
            new ConfigBuilder(mockClient.getConfiguration())
                .withRequestRetryBackoffLimit(0)
                .build())
        .build();
  }

  /**
   * Installs the NodeSet CRD (if absent) and returns its uid: pods are created only with it as
   * their anchor ({@code dev.tandem.k8s.Owners}).
   */
  static String installCrd(KubernetesClient client) {
    var crds = client.apiextensions().v1().customResourceDefinitions();
    var existing = crds.withName(Owners.CRD_NAME).get();
    if (existing != null) {
      return existing.getMetadata().getUid();
    }
    return crds.resource(Fixtures.crd()).create().getMetadata().getUid();
  }

  /**
   * Creates NodeSet {@code ns/name} (if absent) with these finalizers and returns its uid: pods are
   * created only for a NodeSet that exists ({@code LiveOwner}).
   */
  static String nodeSet(KubernetesClient client, String ns, String name, String... finalizers) {
    var nodeSets = dev.tandem.k8s.NodeSetResources.generic(client).inNamespace(ns);
    var existing = nodeSets.withName(name).get();
    if (existing != null) {
      return existing.getMetadata().getUid();
    }
    var r = new io.fabric8.kubernetes.api.model.GenericKubernetesResource();
    r.setApiVersion(dev.tandem.k8s.api.NodeSet.API_VERSION);
    r.setKind(dev.tandem.k8s.api.NodeSet.KIND);
    r.setMetadata(
        new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
            .withName(name)
            .withNamespace(ns)
            .withFinalizers(finalizers)
            .build());
    r.setAdditionalProperty("spec", java.util.Map.of("replicas", 1));
    return nodeSets.resource(r).create().getMetadata().getUid();
  }

  /** A fresh namespace per test, so tests sharing one server never see each other's objects. */
  static String namespace() {
    return "t" + NAMESPACES.incrementAndGet();
  }
}
