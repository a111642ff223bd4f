package dev.tandem.devstack.kube;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * A namespace of one test's (or test class's) own on the JVM's shared control plane ({@code
 * SharedKubernetes}), so that the classes sharing the plane do not meet. Created with its
 * ServiceAccount {@code default}, without which the API server refuses a pod. Closing it deletes
 * every pod in it at once, then the namespace: no kubelet runs to confirm a graceful deletion, so a
 * bound pod would keep the namespace terminating.
 */
public final class TestNamespace implements AutoCloseable {
  private final KubernetesClient client;
  private final String name;

  private TestNamespace(KubernetesClient client, String name) {
    this.client = client;
    this.name = name;
  }

  /** A new namespace {@code <prefix>-<random>}, ready for pods. */
  public static TestNamespace create(KubernetesClient client, String prefix) {
    String name = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
        .create();
    client
        .serviceAccounts()
        .inNamespace(name)
        .withName("default")
        .waitUntilCondition(Objects::nonNull, 60, TimeUnit.SECONDS);
    return new TestNamespace(client, name);
  }

  public String name() {
    return name;
  }

  @Override
  public void close() {
    client.pods().inNamespace(name).withGracePeriod(0).delete();
    client.namespaces().withName(name).delete();
  }
}
