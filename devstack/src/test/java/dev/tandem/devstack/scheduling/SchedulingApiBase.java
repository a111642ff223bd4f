package dev.tandem.devstack.scheduling;

import static org.mockito.Mockito.mock;

import dev.tandem.activities.SchedulingActivitiesImpl;
import dev.tandem.devstack.faults.ApiFaults;
import dev.tandem.devstack.faults.KubeApiProxy;
import dev.tandem.devstack.kube.LocalKubernetes;
import dev.tandem.devstack.kube.SharedKubernetes;
import dev.tandem.devstack.kube.TestNamespace;
import dev.tandem.slurm.SlurmClient;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
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
 * {@link SchedulingActivitiesImpl} against the JVM's real control plane (binding, eviction with
 * budgets, status): two namespaces of each class's own, Nodes {@link #n1}, {@link #n2}, {@link
 * #n7}, {@link #n8} of each test's own (unique names, deleted after; they stay younger than the 20
 * s after which the node lifecycle controller marks a node without a kubelet, and its pods, not
 * ready). The activities talk through a {@link KubeApiProxy}, where a test injects faults; the
 * test's own reads and writes go to the API server directly. Slurm is a Mockito mock. No kubelet
 * runs: a test writes the status a kubelet would.
 */
abstract class SchedulingApiBase {
  static final Instant NOW = Instant.parse("2026-01-02T03:04:05Z");

  static KubernetesClient client;
  static KubeApiProxy proxy;
  static KubernetesClient proxied;
  static TestNamespace namespace;
  static TestNamespace otherNamespace;

  /** The class's namespace. */
  static String ns;

  /** A second namespace of the class's. */
  static String other;

  String n1;
  String n2;
  String n7;
  String n8;
  SlurmClient slurm;
  SimpleMeterRegistry registry;
  SchedulingActivitiesImpl activities;

  @BeforeAll
  static void startServer() throws IOException {
    LocalKubernetes kube = SharedKubernetes.get();
    client = kube.adminClient();
    namespace = TestNamespace.create(client, "scheduling");
    ns = namespace.name();
    otherNamespace = TestNamespace.create(client, "scheduling-other");
    other = otherNamespace.name();
    proxy = KubeApiProxy.start(kube);
    proxied = new KubernetesClientBuilder().withConfig(proxy.config()).build();
  }

  @AfterAll
  static void stopServer() {
    if (proxied != null) {
      proxied.close();
      proxy.close();
    }
    if (client != null) {
      namespace.close();
      otherNamespace.close();
      client.close();
    }
  }

  @BeforeEach
  void newActivities() {
    n1 = node("n1");
    n2 = node("n2");
    n7 = node("n7");
    n8 = node("n8");
    slurm = mock(SlurmClient.class);
    registry = new SimpleMeterRegistry();
    activities =
        new SchedulingActivitiesImpl(proxied, slurm, registry, Clock.fixed(NOW, ZoneOffset.UTC));
  }

  @AfterEach
  void closeActivities() {
    proxy.faults().clear();
    if (activities != null) {
      activities.close();
    }
    for (String n : new String[] {n1, n2, n7, n8}) {
      client.nodes().withName(n).delete();
    }
  }

  /** A Node of a unique name starting with {@code prefix}, as registered (no status yet). */
  private static String node(String prefix) {
    String name = uniqueName(prefix);
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName(name).endMetadata().build())
        .create();
    return name;
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
  static ApiFaults.Fault failPodReads() {
    return proxy
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
