package dev.tandem.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.dev.Manifests;
import dev.tandem.dev.TandemRequests;
import dev.tandem.slurm.testing.Await;
import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeSetSnapshot;
import io.fabric8.kubernetes.api.model.Event;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 15: a pod template field the cluster does not know (newer than its release, or misspelt):
 * container {@code checkpointPolicy} is in no Kubernetes release up to the plane's; Tandem creates
 * pods with {@code fieldValidation=Strict}, so the API answers 400 strict decoding error. The
 * NodeSet must say InvalidSpec (PodRejected) in one line naming the field, not retry the create in
 * a loop, and keep both nodes serving the last good revision; a fixed template then rolls out.
 */
class PodRejectedE2EIT {
  private static final Duration LIMIT = Duration.ofSeconds(120);
  private static final Duration EVERY = Duration.ofMillis(250);
  // Slurm node names must be declared in slurm.conf: scripts/slurm-local.sh declares e2e-[0-7].
  private static final String SET = "e2e";
  private static E2EStack e2e;

  /** A container field no Kubernetes release up to the plane's has. */
  private static final String UNKNOWN_FIELD = "checkpointPolicy";

  @BeforeAll
  static void start() throws Exception {
    e2e = E2EStack.start(Map.of());
  }

  @AfterAll
  static void stop() {
    if (e2e != null) {
      try {
        e2e.deleteNodeSet(SET, LIMIT);
      } finally {
        e2e.close();
      }
    }
  }

  private static boolean allReadyAt(int n, String revision) {
    return allReadyAt(e2e.nodeSetStatus(SET), n, revision);
  }

  private static boolean allReadyAt(NodeSetSnapshot s, int n, String revision) {
    return s.nodes().size() == n
        && s.nodes().stream()
            .allMatch(x -> x.phase() == NodePhase.READY && revision.equals(x.revision()));
  }

  /** The condition as written to the NodeSet's status (what kubectl shows). */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> condition(String type) {
    Object status = e2e.nodeSet(SET).getAdditionalProperties().get("status");
    if (!(status instanceof Map<?, ?> st) || !(st.get("conditions") instanceof List<?> cs)) {
      return Map.of();
    }
    for (Object c : cs) {
      Map<String, Object> m = (Map<String, Object>) c;
      if (type.equals(m.get("type"))) {
        return m;
      }
    }
    return Map.of();
  }

  private static long rejectedEvents() {
    List<Event> evs = e2e.k8s.v1().events().inNamespace("default").list().getItems();
    return evs.stream()
        .filter(e -> "PodRejected".equals(e.getReason()))
        .filter(e -> SET.equals(e.getInvolvedObject().getName()))
        .count();
  }

  @Test
  void aFieldNewerThanTheClusterIsInvalidSpecNotARetryStormAndTheNodesKeepServing()
      throws Exception {
    String fields = e2e.kubectl("explain", "pod.spec.containers");
    assertFalse(fields.contains(UNKNOWN_FIELD), "the plane knows " + UNKNOWN_FIELD);
    e2e.apply(Manifests.nodeSet(SET, 2, "slurmd:v1", ""));
    Await.until(
        "2 nodes ready",
        LIMIT,
        EVERY,
        () -> e2e.nodeSetStatus(SET).nodes(),
        ns -> ns.size() == 2 && ns.stream().allMatch(n -> n.phase() == NodePhase.READY));
    String good = e2e.nodeSetStatus(SET).status().updateRevision();

    // Every pod create Tandem sends from now on, as the API server's audit log has it.
    TandemRequests creates =
        new TandemRequests(
            e2e.stack.kube().auditLog(),
            ev ->
                "create".equals(ev.path("verb").asText())
                    && "pods".equals(ev.path("objectRef").path("resource").asText())
                    && ev.path("objectRef").path("subresource").isMissingNode());
    long before = creates.count();

    e2e.patchSpec(
        SET,
        "{\"template\":{\"spec\":{\"containers\":[{\"name\":\"slurmd\",\"image\":\"slurmd:v1\","
            + "\""
            + UNKNOWN_FIELD
            + "\":{\"mode\":\"Always\"}}]}}}");
    Map<String, Object> invalid =
        Await.until(
            "InvalidSpec PodRejected",
            LIMIT,
            EVERY,
            () -> condition(Condition.INVALID_SPEC),
            c -> "True".equals(c.get("status")) && "PodRejected".equals(c.get("reason")));
    String msg = (String) invalid.get("message");
    assertTrue(msg.contains(UNKNOWN_FIELD), msg);
    assertFalse(msg.contains("\n"), msg);
    assertTrue(msg.length() <= 200, msg);
    String bad = e2e.nodeSetStatus(SET).status().updateRevision();
    assertTrue(msg.contains("revision " + bad), msg);

    // Both nodes serve again at the last good revision, and stay so: no retry storm.
    Await.until(
        "2 nodes ready at " + good,
        LIMIT,
        EVERY,
        () -> e2e.nodeSetStatus(SET),
        s -> allReadyAt(s, 2, good));
    long attempts = creates.count() - before;
    Thread.sleep(25_000); // more than two resync periods (10 s) and many poll intervals (1 s)
    assertTrue(allReadyAt(2, good), e2e.nodeSetStatus(SET).toString());
    assertEquals(attempts, creates.count() - before, "no pod create while nothing changes");
    // One refused create (the node whose old pod went), one create back at the good revision.
    assertTrue(attempts <= 4, "pod create attempts: " + attempts);
    assertTrue(rejectedEvents() >= 1 && rejectedEvents() <= 2, "events: " + rejectedEvents());
    Map<String, Object> degraded = condition(Condition.DEGRADED);
    assertFalse(String.valueOf(degraded.get("message")).contains("\n"), degraded.toString());

    // The template fixed (field removed, another change): the rollout completes.
    e2e.patchSpec(
        SET,
        "{\"template\":{\"spec\":{\"containers\":[{\"name\":\"slurmd\",\"image\":\"slurmd:v2\"}]}}}");
    Await.until(
        "a new revision",
        LIMIT,
        EVERY,
        () -> e2e.nodeSetStatus(SET).status().updateRevision(),
        r -> !r.equals(bad) && !r.equals(good));
    String fixed = e2e.nodeSetStatus(SET).status().updateRevision();
    Await.until(
        "2 nodes ready at " + fixed,
        LIMIT,
        EVERY,
        () -> e2e.nodeSetStatus(SET),
        s -> allReadyAt(s, 2, fixed));
    Await.until(
        "InvalidSpec cleared",
        LIMIT,
        EVERY,
        () -> condition(Condition.INVALID_SPEC),
        c -> "False".equals(c.get("status")));
  }
}
