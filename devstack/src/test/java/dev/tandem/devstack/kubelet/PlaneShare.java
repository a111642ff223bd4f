package dev.tandem.devstack.kubelet;

import static org.awaitility.Awaitility.await;

import dev.tandem.devstack.kube.SharedKubernetes;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One test's part of the JVM's real control plane ({@link SharedKubernetes}): a namespace and a
 * node name prefix nobody else uses, and an admin client whose default namespace is that one. At
 * close the test's pods are deleted at once (its kubelet is gone: nothing else would confirm their
 * deletion), then its nodes and its namespace.
 */
final class PlaneShare implements AutoCloseable {
  private static final AtomicInteger SEQ = new AtomicInteger();

  final String ns;
  final String nodePrefix;
  final KubernetesClient client;

  PlaneShare(String what) throws IOException {
    ns = what + "-" + SEQ.incrementAndGet();
    nodePrefix = ns + "-";
    Config config = SharedKubernetes.get().adminConfig();
    config.setNamespace(ns);
    client = new KubernetesClientBuilder().withConfig(config).build();
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
        .create();
    // Pods are refused until the service account controller has made the namespace's "default".
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> client.serviceAccounts().withName("default").get() != null);
  }

  String node(int i) {
    return nodePrefix + i;
  }

  @Override
  public void close() {
    client.pods().withGracePeriod(0).delete();
    for (Node n : client.nodes().withLabel(KubeletConfig.LOCAL_LABEL, "true").list().getItems()) {
      if (n.getMetadata().getName().startsWith(nodePrefix)) {
        client.nodes().resource(n).delete();
      }
    }
    client.namespaces().withName(ns).delete();
    client.close();
  }
}
