package dev.tandem.devstack.remediation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.tandem.activities.RebootAction;
import dev.tandem.activities.RebootActions;
import dev.tandem.k8s.Json;
import dev.tandem.slurm.testing.Await;
import dev.tandem.workflows.Names;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The three reboot actions of {@code TANDEM_REMEDIATION_REBOOT} and their parsing. */
class RebootActionsTest extends RemediationApiBase {
  @TempDir Path tmp;
  HttpServer webhook;
  final List<JsonNode> posted = new CopyOnWriteArrayList<>();
  final AtomicInteger answer = new AtomicInteger(200);

  @AfterEach
  void stopWebhook() {
    if (webhook != null) {
      webhook.stop(0);
    }
  }

  private String startWebhook() throws IOException {
    webhook = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    webhook.createContext(
        "/reboot",
        ex -> {
          posted.add(Json.MAPPER.readTree(ex.getRequestBody().readAllBytes()));
          ex.sendResponseHeaders(answer.get(), -1);
          ex.close();
        });
    webhook.start();
    return "webhook:http://127.0.0.1:" + webhook.getAddress().getPort() + "/reboot";
  }

  private static String annotation(String node, String key) {
    Map<String, String> a = client.nodes().withName(node).get().getMetadata().getAnnotations();
    return a == null ? null : a.get(key);
  }

  @Test
  void parseAcceptsTheThreeFormsAndRefusesAnythingElse() throws IOException {
    assertEquals("annotation", RebootActions.parse(null, client, Clock.systemUTC()).describe());
    assertEquals("annotation", RebootActions.parse(" ", client, Clock.systemUTC()).describe());
    assertEquals(
        "webhook:https://ops.example.com/reboot",
        RebootActions.parse("webhook:https://ops.example.com/reboot", client, Clock.systemUTC())
            .describe());
    Path script = executable("ok.sh", "exit 0");
    assertEquals(
        "command:" + script,
        RebootActions.parse("command:" + script, client, Clock.systemUTC()).describe());
    for (String bad :
        List.of(
            "anotation",
            "webhook:ftp://x/y",
            "webhook:not a url",
            "command:relative.sh",
            "command:" + tmp.resolve("missing.sh"))) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () -> RebootActions.parse(bad, client, Clock.systemUTC()),
              bad);
      assertTrue(e.getMessage().startsWith(RebootActions.ENV), e.getMessage());
    }
  }

  @Test
  void webhookPostsOnceAndIsDoneOnlyWhenTheNodeBootedAgain() throws IOException {
    String k8s = unique("host");
    node(k8s, Map.of(), Map.of("Ready", "True"));
    setConditions(client, k8s, Map.of("Ready", "True"), "boot-1");
    RebootAction a = RebootActions.parse(startWebhook(), client, Clock.systemUTC());

    a.request(k8s, "tok-1", "GpuUnhealthy=True");
    a.request(k8s, "tok-1", "GpuUnhealthy=True");
    assertEquals(1, posted.size(), "the same token is one request");
    assertEquals(k8s, posted.get(0).path("node").asText());
    assertEquals("tok-1", posted.get(0).path("token").asText());
    assertEquals("GpuUnhealthy=True", posted.get(0).path("reason").asText());
    assertEquals("tok-1", annotation(k8s, Names.ANNOTATION_REBOOT_REQUESTED));

    assertFalse(a.done(k8s, "tok-1"), "answered, but the node did not reboot yet");
    setConditions(client, k8s, Map.of("Ready", "False"), "boot-2");
    assertFalse(a.done(k8s, "tok-1"), "rebooted but not Ready");
    setConditions(client, k8s, Map.of("Ready", "True"), "boot-2");
    assertTrue(a.done(k8s, "tok-1"));
    assertFalse(a.done(k8s, "tok-2"), "another request is not done by this reboot");
  }

  @Test
  void webhookRefusalFailsTheCallAndRecordsNothing() throws IOException {
    String k8s = unique("host");
    node(k8s, Map.of(), Map.of("Ready", "True"));
    answer.set(503);
    RebootAction a = RebootActions.parse(startWebhook(), client, Clock.systemUTC());
    ApplicationFailure f = assertThrows(ApplicationFailure.class, () -> a.request(k8s, "tok", "x"));
    assertTrue(f.getOriginalMessage().contains("HTTP 503"), f.getOriginalMessage());
    assertFalse(f.isNonRetryable(), "the receiver may come back: Temporal retries");
    assertNull(annotation(k8s, Names.ANNOTATION_REBOOT_REQUESTED));
    assertFalse(a.done(k8s, "tok"));
  }

  @Test
  void commandIsDoneWhenItExitsZero() throws IOException {
    String k8s = unique("host");
    node(k8s, Map.of(), Map.of("Ready", "True"));
    Path out = tmp.resolve("args");
    Path script = executable("reboot.sh", "echo \"$1|$2|$3\" > " + out + "; sleep 0.3; exit 0");
    RebootAction a = RebootActions.parse("command:" + script, client, Clock.systemUTC());
    a.request(k8s, "tok-9", "Xid 79");
    a.request(k8s, "tok-9", "Xid 79"); // still running: not started twice
    Await.until(
        "the command to finish", Duration.ofSeconds(20), () -> a.done(k8s, "tok-9"), d -> d);
    assertEquals(k8s + "|tok-9|Xid 79", Files.readString(out, StandardCharsets.UTF_8).strip());
    assertEquals("tok-9", annotation(k8s, Names.ANNOTATION_REBOOTED));
  }

  @Test
  void aFailingCommandIsNeverDone() throws IOException, InterruptedException {
    String k8s = unique("host");
    node(k8s, Map.of(), Map.of("Ready", "True"));
    Path ran = tmp.resolve("ran");
    Path script = executable("fail.sh", "touch " + ran + "; exit 3");
    RebootAction a = RebootActions.parse("command:" + script, client, Clock.systemUTC());
    a.request(k8s, "tok", "x");
    Await.until("the command to run", Duration.ofSeconds(20), () -> Files.exists(ran), r -> r);
    Thread.sleep(500); // the exit is seen right after; it must not count as done
    assertFalse(a.done(k8s, "tok"));
    assertNull(annotation(k8s, Names.ANNOTATION_REBOOTED));
  }

  private Path executable(String name, String body) throws IOException {
    Path p = tmp.resolve(name);
    Files.writeString(p, "#!/bin/sh\n" + body + "\n");
    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwx------"));
    return p;
  }
}
