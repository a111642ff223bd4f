package dev.tandem.devstack.scheduling;

import static org.mockito.Mockito.mock;

import dev.tandem.activities.SchedulingActivitiesImpl;
import dev.tandem.devstack.api.LocalApiServer;
import dev.tandem.slurm.SlurmClient;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * {@link SchedulingActivitiesImpl} against the local Kubernetes API (real API server semantics for
 * binding, eviction with budgets, status), one server per class; Slurm is a Mockito mock.
 */
abstract class SchedulingApiBase {
  static final String NS = "default";
  static final Instant NOW = Instant.parse("2026-01-02T03:04:05Z");

  static LocalApiServer server;
  static KubernetesClient client;

  SlurmClient slurm;
  SimpleMeterRegistry registry;
  SchedulingActivitiesImpl activities;

  @BeforeAll
  static void startServer() throws IOException {
    server = LocalApiServer.start(0);
    client = server.client();
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName("other").endMetadata().build())
        .create();
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  @BeforeEach
  void newActivities() {
    slurm = mock(SlurmClient.class);
    registry = new SimpleMeterRegistry();
    activities =
        new SchedulingActivitiesImpl(client, slurm, registry, Clock.fixed(NOW, ZoneOffset.UTC));
  }

  @AfterEach
  void closeActivities() {
    if (activities != null) {
      activities.close();
    }
  }

  static String uniqueName(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  /** A pod for the tandem-slurm scheduler, not bound. */
  static Pod createPod(String ns, String name, Map<String, String> labels) {
    Pod p =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .withLabels(labels)
            .endMetadata()
            .withNewSpec()
            .withSchedulerName("tandem-slurm")
            .withTerminationGracePeriodSeconds(20L)
            .addNewContainer()
            .withName("main")
            .withImage("busybox:1.36")
            .endContainer()
            .endSpec()
            .build();
    return client.pods().inNamespace(ns).resource(p).create();
  }

  /** Every pod read fails with 500 for a minute: a call that reads a pod shows it. */
  static dev.tandem.devstack.api.ApiFaults.Fault failPodReads() {
    return server
        .faults()
        .failMatching(
            r -> "GET".equals(r.method()) && "pods".equals(r.resource()),
            500,
            java.time.Duration.ofMinutes(1));
  }

  /** Binds as another scheduler would (no annotations). */
  static void bindRaw(String ns, String name, String node) {
    client
        .bindings()
        .inNamespace(ns)
        .resource(
            new BindingBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewTarget()
                .withKind("Node")
                .withName(node)
                .endTarget()
                .build())
        .create();
  }

  /** What a kubelet reports for a started pod. */
  static void markRunning(String ns, String name, boolean ready) {
    client
        .pods()
        .inNamespace(ns)
        .withName(name)
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.STRATEGIC_MERGE),
            "{\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":\""
                + (ready ? "True" : "False")
                + "\"}]}}");
  }

  static Pod get(String ns, String name) {
    return client.pods().inNamespace(ns).withName(name).get();
  }
}
