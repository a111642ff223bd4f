package dev.tandem.activities;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.workflows.Names;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.Map;

/**
 * Reboot through a webhook: {@code POST <url>} with JSON {@code {"node","token","reason"}}.
 *
 * <p>Done means the machine really came back, not that the webhook said yes:
 *
 * <ol>
 *   <li>A 2xx answer records the request on the Node: {@code tandem.dev/reboot-requested=<token>}
 *       plus the node's {@code status.nodeInfo.bootID} and the time of the request. A request whose
 *       token is already recorded is not sent again.
 *   <li>Done when the request is recorded, the node is Ready, and either its bootID differs from
 *       the recorded one (a real reboot always changes it) or, when the node reports no bootID, its
 *       Ready condition last changed after the request. A receiver may also set {@code
 *       tandem.dev/rebooted=<token>} itself, which counts as done.
 * </ol>
 *
 * Anything else answered is a retryable failure (the receiver may be restarting).
 */
final class WebhookReboot implements RebootAction {
  static final String BOOT_ID = Names.PREFIX + "reboot-boot-id";
  static final String REQUESTED_AT = Names.PREFIX + "reboot-requested-at";

  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final URI url;
  private final NodeWrites nodes;
  private final Clock clock;
  private final HttpClient http;

  WebhookReboot(URI url, NodeWrites nodes, Clock clock) {
    this.url = url;
    this.nodes = nodes;
    this.clock = clock;
    this.http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
  }

  @Override
  public void request(String node, String token, String reason) {
    Node n = nodes.get(node);
    if (n == null) {
      throw KubeCalls.rejected("cannot ask for a reboot of node " + node + ": it does not exist");
    }
    if (token.equals(annotation(n, Names.ANNOTATION_REBOOT_REQUESTED))) {
      return;
    }
    Instant at = clock.instant();
    post(node, token, reason);
    Map<String, String> record = new HashMap<>();
    record.put(Names.ANNOTATION_REBOOT_REQUESTED, token);
    record.put(BOOT_ID, bootId(n) == null ? "" : bootId(n));
    record.put(REQUESTED_AT, at.toString());
    nodes.annotate(node, record);
  }

  private void post(String node, String token, String reason) {
    ObjectNode body = JsonNodeFactory.instance.objectNode();
    body.put("node", node).put("token", token).put("reason", reason);
    HttpRequest req =
        HttpRequest.newBuilder(url)
            .timeout(TIMEOUT)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
            .build();
    int status;
    try {
      status = http.send(req, HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      throw ApplicationFailure.newFailure(
          "reboot webhook " + url + " for node " + node + ": " + e, "RebootWebhookFailed");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw ApplicationFailure.newFailure("interrupted", "RebootWebhookFailed");
    }
    if (status / 100 != 2) {
      throw ApplicationFailure.newFailure(
          "reboot webhook " + url + " for node " + node + " answered HTTP " + status,
          "RebootWebhookFailed");
    }
  }

  @Override
  public boolean done(String node, String token) {
    Node n = nodes.get(node);
    if (n == null) {
      return false;
    }
    if (AnnotationReboot.rebooted(n, token)) {
      return true;
    }
    if (!token.equals(annotation(n, Names.ANNOTATION_REBOOT_REQUESTED))) {
      return false;
    }
    NodeCondition ready = ready(n);
    if (ready == null || !"True".equals(ready.getStatus())) {
      return false;
    }
    String before = annotation(n, BOOT_ID);
    String now = bootId(n);
    if (before != null && !before.isEmpty() && now != null && !now.isEmpty()) {
      return !before.equals(now);
    }
    Instant asked = instant(annotation(n, REQUESTED_AT));
    Instant changed = instant(ready.getLastTransitionTime());
    return asked != null && changed != null && changed.isAfter(asked);
  }

  private static String annotation(Node n, String key) {
    return n.getMetadata().getAnnotations() == null
        ? null
        : n.getMetadata().getAnnotations().get(key);
  }

  private static String bootId(Node n) {
    return n.getStatus() == null || n.getStatus().getNodeInfo() == null
        ? null
        : n.getStatus().getNodeInfo().getBootID();
  }

  private static NodeCondition ready(Node n) {
    if (n.getStatus() == null || n.getStatus().getConditions() == null) {
      return null;
    }
    return n.getStatus().getConditions().stream()
        .filter(c -> "Ready".equals(c.getType()))
        .findFirst()
        .orElse(null);
  }

  private static Instant instant(String s) {
    try {
      return s == null ? null : Instant.parse(s);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  @Override
  public String describe() {
    return "webhook:" + url;
  }
}
