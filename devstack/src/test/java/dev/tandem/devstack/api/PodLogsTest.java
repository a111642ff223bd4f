package dev.tandem.devstack.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pods/{name}/log} from the local kubelet's files, with the API server's and the kubelet's
 * answers ({@link PodLogs}): what {@code kubectl logs} and {@code kubectl logs -f} read.
 */
class PodLogsTest extends ApiTestBase {
  private static final String NS = "pod-logs";
  private static final HttpClient HTTP =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();
  @TempDir static Path logs;

  @BeforeAll
  static void serveLogs() {
    server.servePodLogsFrom(logs);
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
        .create();
  }

  @Test
  void aContainersFileIsItsLogWithTailAndByteLimits() throws Exception {
    running("web", "main");
    write("web", "main", "one\ntwo\nthree\n");
    assertEquals("one\ntwo\nthree\n", get("web", ""));
    assertEquals("one\ntwo\nthree\n", client.pods().inNamespace(NS).withName("web").getLog());
    assertEquals("two\nthree\n", get("web", "?tailLines=2"));
    assertEquals("three\n", client.pods().inNamespace(NS).withName("web").tailingLines(1).getLog());
    assertEquals("", get("web", "?tailLines=0"));
    assertEquals("one\ntwo\nthree\n", get("web", "?tailLines=10"));
    assertEquals("one\nt", get("web", "?limitBytes=5"));
    assertEquals("two\nt", get("web", "?tailLines=2&limitBytes=5"));
    assertEquals("one\ntwo\nthree\n", get("web", "?container=main"));
  }

  @Test
  void aRunningContainerWithoutAProcessHasPrintedNothing() throws Exception {
    running("quiet", "main");
    assertEquals("", get("quiet", ""));
  }

  @Test
  void refusalsSayWhatAKubeletOrTheApiServerSays() throws Exception {
    assertEquals(404, call("nosuch", "", HttpResponse.BodyHandlers.ofString()).statusCode());
    client.pods().inNamespace(NS).resource(pod("unbound", Map.of())).create();
    assertRefused("unbound", "", "pod unbound does not have a host assigned");
    client
        .pods()
        .inNamespace(NS)
        .resource(
            new PodBuilder(pod("two", Map.of()))
                .editSpec()
                .withNodeName("local-1")
                .addNewContainer()
                .withName("side")
                .withImage("busybox:1.36")
                .endContainer()
                .endSpec()
                .build())
        .create();
    assertRefused(
        "two", "", "a container name must be specified for pod two, choose one of: [main side]");
    assertRefused("two", "?container=nosuch", "container nosuch is not valid for pod two");
    assertRefused(
        "two",
        "?container=side",
        "container \"side\" in pod \"two\" is waiting to start: ContainerCreating");
    running("prev", "main");
    assertRefused(
        "prev",
        "?previous=true",
        "previous terminated container \"main\" in pod \"prev\" not found");
    assertRefused("prev", "?tailLines=-1", "tailLines: Invalid value");
  }

  @Test
  void followStreamsWhatTheContainerWritesUntilItStops() {
    running("follow", "main");
    write("follow", "main", "a\nb\n");
    assertTimeoutPreemptively(
        Duration.ofSeconds(30),
        () -> {
          HttpResponse<Stream<String>> r =
              call("follow", "?follow=true&tailLines=1", HttpResponse.BodyHandlers.ofLines());
          assertEquals(200, r.statusCode());
          assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"));
          Iterator<String> lines = r.body().iterator();
          assertEquals("b", lines.next());
          Files.writeString(file("follow", "main"), "c\n", StandardOpenOption.APPEND);
          assertEquals("c", lines.next());
          terminated("follow", "main");
          assertFalse(lines.hasNext(), "the stream ends once the container has stopped");
        });
  }

  @Test
  void followEndsAtItsByteLimit() {
    running("capped", "main");
    write("capped", "main", "0123456789\n");
    assertTimeoutPreemptively(
        Duration.ofSeconds(30),
        () -> {
          HttpResponse<String> r =
              call("capped", "?follow=true&limitBytes=4", HttpResponse.BodyHandlers.ofString());
          assertEquals("0123", r.body());
        });
  }

  private static void running(String name, String container) {
    Pod p =
        client
            .pods()
            .inNamespace(NS)
            .resource(
                new PodBuilder(pod(name, Map.of()))
                    .editSpec()
                    .withNodeName("local-1")
                    .endSpec()
                    .build())
            .create();
    status(
        p,
        "Running",
        new ContainerStatusBuilder()
            .withName(container)
            .withNewState()
            .withNewRunning()
            .withStartedAt("2026-11-29T22:00:00Z")
            .endRunning()
            .endState()
            .build());
  }

  private static void terminated(String name, String container) {
    status(
        client.pods().inNamespace(NS).withName(name).get(),
        "Succeeded",
        new ContainerStatusBuilder()
            .withName(container)
            .withNewState()
            .withNewTerminated()
            .withExitCode(0)
            .endTerminated()
            .endState()
            .build());
  }

  /** Writes the pod's status as its kubelet would. */
  private static void status(Pod p, String phase, ContainerStatus container) {
    client
        .pods()
        .inNamespace(NS)
        .resource(
            new PodBuilder(p)
                .editStatus()
                .withPhase(phase)
                .withContainerStatuses(container)
                .endStatus()
                .build())
        .updateStatus();
  }

  private static Path file(String pod, String container) {
    return logs.resolve(NS + "_" + pod + "_" + container + ".log");
  }

  private static void write(String pod, String container, String text) {
    try {
      Files.writeString(file(pod, container), text);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static String get(String pod, String query) throws Exception {
    HttpResponse<String> r = call(pod, query, HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), r.body());
    return r.body();
  }

  private static void assertRefused(String pod, String query, String message) throws Exception {
    HttpResponse<String> r = call(pod, query, HttpResponse.BodyHandlers.ofString());
    assertEquals(400, r.statusCode(), r.body());
    assertTrue(r.body().contains(message.replace("\"", "\\\"")), r.body());
  }

  /** {@code GET pods/{pod}/log{query}} in the test namespace. */
  private static <T> HttpResponse<T> call(String pod, String query, HttpResponse.BodyHandler<T> h)
      throws Exception {
    String path = "/api/v1/namespaces/" + NS + "/pods/" + pod + "/log" + query;
    return HTTP.send(HttpRequest.newBuilder(URI.create(server.url() + path)).build(), h);
  }
}
