package dev.tandem.devstack.api;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/** One local API per test class, with the test CRD installed. */
abstract class ApiTestBase {
  static LocalApiServer server;
  static KubernetesClient client;
  static ApiHttp http;

  @BeforeAll
  static void startServer() throws IOException {
    server = LocalApiServer.start(0);
    server.installCrd("test-crds/nodesets.tandem.dev.yaml");
    client = server.client();
    http = new ApiHttp(server);
  }

  /**
   * After every test: the store's index still holds exactly the mock's map, its trees unchanged (no
   * reader changed a shared tree), and reads answer what a scan of the map answers.
   */
  @AfterEach
  void indexAgreesWithTheMap() {
    StoreOracle.assertConsistent(server);
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  static Pod pod(String name, Map<String, String> labels) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withLabels(labels)
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("main")
        .withImage("busybox:1.36")
        .endContainer()
        .endSpec()
        .build();
  }

  static Pod createPod(String ns, String name, Map<String, String> labels) {
    return client.pods().inNamespace(ns).resource(pod(name, labels)).create();
  }

  /** Polls (every 20 ms, at most {@code max}) until the condition holds. */
  static void await(Duration max, BooleanSupplier condition, String what) {
    long end = System.nanoTime() + max.toNanos();
    while (System.nanoTime() < end) {
      if (condition.getAsBoolean()) {
        return;
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + what);
      }
    }
    throw new AssertionError("timed out after " + max + " waiting for " + what);
  }
}
