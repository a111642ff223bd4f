package dev.tandem.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tandem.dev.Manifests;
import dev.tandem.slurm.SlurmNode;
import dev.tandem.slurm.testing.Await;
import dev.tandem.workflows.model.NodePhase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 13, item 1: a NodeSet's Slurm settings really reach Slurm. The NodeSet's name is not a pool
 * of the local slurm.conf, so its pod runs the pod contract ({@code slurmd -Z --conf
 * "$SLURM_NODE_CONF"}) as a dynamic node; everything is checked through slurmrestd: features, GRES,
 * weight and partition membership (the {@code gpu} partition is a node set over feature {@code
 * h100}/{@code a100}), then a settings change rolls the node and Slurm reports the new values, then
 * scaling to 0 removes the Slurm node record.
 */
class DynamicNodeSetE2EIT {
  private static final String SET = "dynh";
  private static final String NODE = SET + "-0";
  private static final Duration LIMIT = Duration.ofSeconds(90);
  private static final Duration EVERY = Duration.ofMillis(250);
  private static final ObjectMapper JSON = new ObjectMapper();

  private static E2EStack e2e;

  @BeforeAll
  static void start() throws Exception {
    e2e = E2EStack.start(Map.of());
  }

  @AfterAll
  static void stop() {
    if (e2e != null) {
      try {
        if (e2e.nodeSet(SET) != null) {
          e2e.deleteNodeSet(SET, LIMIT);
        }
      } finally {
        e2e.close();
      }
    }
  }

  /** What Slurm reports for a node, from slurmrestd's node listing. */
  record Reported(Set<String> features, String gres, long weight, Set<String> partitions) {}

  @Test
  void settingsReachSlurmRollWithChangesAndGoWithTheNode() throws Exception {
    e2e.apply(
        Manifests.nodeSet(
            SET,
            1,
            "slurmd:v1",
            "  slurm:\n    partitions: [gpu]\n    features: [h100, ib]\n"
                + "    gres: gpu:h100:8\n    weight: 7\n"));
    e2e.awaitPhase(NODE, NodePhase.READY);
    Reported first =
        new Reported(Set.of("h100", "ib"), "gpu:h100:8", 7, Set.of("low", "high", "gpu"));
    Await.until(NODE + " reported as " + first, LIMIT, EVERY, () -> reported(NODE), first::equals);
    SlurmNode n = e2e.slurmNode(NODE).orElseThrow();
    assertTrue(n.hasFlag("DYNAMIC_NORM"), NODE + " is a dynamic node: " + n.flags());
    assertEquals(Set.of("h100", "ib"), new TreeSet<>(n.features()), "features via SlurmClient");
    assertEquals("gpu:h100:8", n.gres(), "GRES via SlurmClient");
    String firstUid = e2e.pod(NODE).orElseThrow().getMetadata().getUid();

    // New settings: a new revision; the node is drained, its pod replaced, and Slurm then
    // reports the new values (a100 keeps it in the gpu partition; without ib, gpu:a100:4).
    e2e.patchSpec(
        SET,
        "{\"slurm\":{\"partitions\":[\"gpu\"],\"features\":[\"a100\",\"nvl\"],"
            + "\"gres\":\"gpu:a100:4\",\"weight\":3}}");
    Await.until(
        NODE + " replaced",
        LIMIT,
        EVERY,
        () -> e2e.pod(NODE).map(p -> p.getMetadata().getUid()).orElse(firstUid),
        uid -> !uid.equals(firstUid));
    Reported second =
        new Reported(Set.of("a100", "nvl"), "gpu:a100:4", 3, Set.of("low", "high", "gpu"));
    Await.until(
        NODE + " reported as " + second, LIMIT, EVERY, () -> reported(NODE), second::equals);
    e2e.awaitPhase(NODE, NodePhase.READY);
    assertEquals(
        Set.of("a100", "nvl"), new TreeSet<>(e2e.slurmNode(NODE).orElseThrow().features()));

    // Scale to 0: the pod goes and so does the Slurm node record.
    e2e.patchSpec(SET, "{\"replicas\":0}");
    Await.until(NODE + " pod gone", LIMIT, EVERY, () -> e2e.pod(NODE).isEmpty(), b -> b);
    Await.until(
        NODE + " gone from Slurm", LIMIT, EVERY, () -> e2e.slurmNode(NODE).isEmpty(), b -> b);
    assertEquals(null, rawNode(NODE), NODE + " still listed by slurmrestd");
  }

  /** The node as slurmrestd's {@code GET /nodes} reports it, or null if not listed. */
  private static Reported reported(String name) {
    JsonNode n = rawNode(name);
    if (n == null) {
      return null;
    }
    Set<String> features = new TreeSet<>();
    for (String f : n.path("features").asText("").split(",")) {
      if (!f.isBlank()) {
        features.add(f);
      }
    }
    Set<String> partitions = new TreeSet<>();
    n.path("partitions").forEach(p -> partitions.add(p.asText()));
    return new Reported(
        Set.copyOf(features),
        n.path("gres").asText(""),
        n.path("weight").asLong(-1),
        Set.copyOf(partitions));
  }

  /**
   * From the listing, not {@code GET /node/{name}}: 22.05's single-node answer lists every
   * partition for any node (docs/slurm-local.md, pitfalls).
   */
  private static JsonNode rawNode(String name) {
    Map<String, String> env = e2e.stack.slurm().env();
    try {
      String token = Files.readString(Path.of(env.get("SLURM_TOKEN_FILE"))).trim();
      // curl: 22.05's slurmrestd writes headers that java.net.http refuses to parse.
      String body =
          e2e.run(
              List.of(
                  "curl",
                  "-fsS",
                  "--max-time",
                  "10",
                  "-H",
                  "X-SLURM-USER-NAME: " + env.getOrDefault("SLURM_USER", "root"),
                  "-H",
                  "X-SLURM-USER-TOKEN: " + token,
                  env.get("SLURM_REST_URL") + "/slurm/v0.0.38/nodes"));
      List<JsonNode> hits = new ArrayList<>();
      JSON.readTree(body)
          .path("nodes")
          .forEach(
              x -> {
                if (name.equals(x.path("name").asText())) {
                  hits.add(x);
                }
              });
      return hits.isEmpty() ? null : hits.get(0);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
