package dev.tandem.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.dev.Manifests;
import dev.tandem.devstack.api.ApiFaults;
import dev.tandem.devstack.api.KubeVersion;
import dev.tandem.slurm.testing.Await;
import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeSetSnapshot;
import io.fabric8.kubernetes.api.model.Event;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 15: a pod template field newer than the cluster. The local API emulates Kubernetes 1.26,
 * where container {@code resizePolicy} does not exist; Tandem creates pods with {@code
 * fieldValidation=Strict}, so the API answers 400 strict decoding error. The NodeSet must say
 * InvalidSpec (PodRejected) in one line naming the field, not retry the create in a loop, and keep
 * both nodes serving the last good revision; a fixed template then rolls out.
 */
class PodRejectedE2EIT {
  private static final Duration LIMIT = Duration.ofSeconds(120);
  private static final Duration EVERY = Duration.ofMillis(250);
  // Slurm node names must be declared in slurm.conf: scripts/slurm-local.sh declares e2e-[0-7].
  private static final String SET = "e2e";
  private static E2EStack e2e;

  /** A cluster too old for container resizePolicy (1.27). */
  private static final KubeVersion KUBE = KubeVersion.parse(System.getProperty("e2e.kube", "1.26"));

  @BeforeAll
  static void start() throws Exception {
    e2e = E2EStack.start(Map.of(), UnaryOperator.identity(), KUBE);
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
    String version = e2e.kubectl("version", "-o", "json");
    assertTrue(version.contains("\"minor\": \"" + KUBE.minor() + "\""), version);
    e2e.apply(Manifests.nodeSet(SET, 2, "slurmd:v1", ""));
    Await.until(
        "2 nodes ready",
        LIMIT,
        EVERY,
        () -> e2e.nodeSetStatus(SET).nodes(),
        ns -> ns.size() == 2 && ns.stream().allMatch(n -> n.phase() == NodePhase.READY));
    String good = e2e.nodeSetStatus(SET).status().updateRevision();

    // Count every pod create the API sees from now on (a 1 ms delay changes nothing else).
    ApiFaults.Fault creates =
        e2e.stack
            .apiFaults()
            .delayMatching(
                r ->
                    "POST".equals(r.method())
                        && "pods".equals(r.resource())
                        && r.subresource() == null,
                Duration.ofMillis(1),
                Duration.ofHours(1));

    e2e.patchSpec(
        SET,
        "{\"template\":{\"spec\":{\"containers\":[{\"name\":\"slurmd\",\"image\":\"slurmd:v1\","
            + "\"resizePolicy\":[{\"resourceName\":\"cpu\",\"restartPolicy\":\"NotRequired\"}]}]}}}");
    Map<String, Object> invalid =
        Await.until(
            "InvalidSpec PodRejected",
            LIMIT,
            EVERY,
            () -> condition(Condition.INVALID_SPEC),
            c -> "True".equals(c.get("status")) && "PodRejected".equals(c.get("reason")));
    String msg = (String) invalid.get("message");
    assertTrue(msg.contains("resizePolicy"), msg);
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
    long attempts = creates.hits();
    Thread.sleep(25_000); // more than two resync periods (10 s) and many poll intervals (1 s)
    assertTrue(allReadyAt(2, good), e2e.nodeSetStatus(SET).toString());
    assertEquals(attempts, creates.hits(), "no pod create while nothing changes");
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
    creates.cancel();
  }
}
