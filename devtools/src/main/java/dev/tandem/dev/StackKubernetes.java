package dev.tandem.dev;

import dev.tandem.devstack.LocalScript;
import dev.tandem.devstack.kube.LocalKubernetes;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The real Kubernetes control plane of a stack (docs/kube-local.md), its state in {@code dir}. A
 * stack's Temporal starts empty, so its Kubernetes does too: a plane an earlier run left running
 * from {@code dir} is stopped and every object it kept is removed (its etcd data, logs and audit
 * log; the certificates stay, they cost seconds to make). Then the plane starts, the NodeSet CRD is
 * installed and the {@code default} namespace's ServiceAccount exists (the API refuses pods until
 * the controller has made it).
 */
final class StackKubernetes implements AutoCloseable {
  private final LocalKubernetes kube;
  private final KubernetesClient client;

  private StackKubernetes(LocalKubernetes kube, KubernetesClient client) {
    this.kube = kube;
    this.client = client;
  }

  /**
   * @param port the API server's port on 127.0.0.1, the first of five (0: free ones)
   * @param nodeGrace the node lifecycle controller's grace for a missing node heartbeat
   */
  static StackKubernetes start(Path dir, int port, Duration nodeGrace) throws IOException {
    if (Files.isDirectory(dir)) {
      LocalKubernetes.stopLeftover(dir);
      try (Stream<Path> files = Files.list(dir)) {
        for (Path f : files.filter(f -> !f.getFileName().toString().equals("pki")).toList()) {
          LocalScript.deleteTree(f);
        }
      }
    }
    LocalKubernetes kube = LocalKubernetes.start(dir, port, nodeGrace);
    KubernetesClient client = null;
    try {
      client = kube.adminClient();
      kube.installNodeSetCrd(client);
      client
          .serviceAccounts()
          .inNamespace("default")
          .withName("default")
          .waitUntilCondition(sa -> sa != null, 60, TimeUnit.SECONDS);
      return new StackKubernetes(kube, client);
    } catch (IOException | RuntimeException e) {
      if (client != null) {
        client.close();
      }
      kube.close();
      throw e;
    }
  }

  LocalKubernetes plane() {
    return kube;
  }

  /** An admin client, shared by the stack's own parts (the kubelet, topology, tests). */
  KubernetesClient client() {
    return client;
  }

  @Override
  public void close() {
    client.close();
    kube.close();
  }
}
