package dev.tandem.devstack.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * policy/v1 PodDisruptionBudgets (status as the disruption controller computes it) and the eviction
 * subresource honouring them. The plain mock does not serve policy/v1 budgets and answers every
 * eviction with 409.
 */
class DisruptionBudgetTest extends ApiTestBase {
  private static final String NS = "default";

  /** A pod bound to n1, Running and Ready (what a kubelet reports) or Running and not Ready. */
  private static void runningPod(String name, Map<String, String> labels, boolean ready) {
    runningPod(new PodBuilder(pod(name, labels)).build(), ready);
  }

  private static void runningPod(Pod p, boolean ready) {
    String name = p.getMetadata().getName();
    client.pods().inNamespace(NS).resource(p).create();
    ApiHttp.Res b =
        http.post(
            "/api/v1/namespaces/default/pods/" + name + "/binding",
            "{\"kind\":\"Binding\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\""
                + name
                + "\"},\"target\":{\"kind\":\"Node\",\"name\":\"n1\"}}");
    assertEquals(201, b.code(), b.body());
    client
        .pods()
        .inNamespace(NS)
        .withName(name)
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.STRATEGIC_MERGE),
            "{\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":\""
                + (ready ? "True" : "False")
                + "\"}]}}");
  }

  private static PodDisruptionBudget budget(String name, String app, IntOrString min) {
    return new PodDisruptionBudgetBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withMinAvailable(min)
        .withNewSelector()
        .addToMatchLabels("app", app)
        .endSelector()
        .endSpec()
        .build();
  }

  private static PodDisruptionBudget getBudget(String name) {
    return client.policy().v1().podDisruptionBudget().inNamespace(NS).withName(name).get();
  }

  private static ApiHttp.Res evict(String pod) {
    return http.post(
        "/api/v1/namespaces/default/pods/" + pod + "/eviction",
        "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\",\"metadata\":{\"name\":\""
            + pod
            + "\"}}");
  }

  /** fabric8 retries 429 ten times by default: a client that does not, as the worker uses. */
  private static KubernetesClient noRetryClient() {
    Config c =
        new ConfigBuilder(Config.empty())
            .withMasterUrl(server.url())
            .withNamespace(NS)
            .withHttp2Disable(true)
            .withRequestRetryBackoffLimit(0)
            .build();
    return new KubernetesClientBuilder().withConfig(c).build();
  }

  @Test
  void budgetIsServedAndItsStatusComputedFromReadyPods() {
    JsonNode gv = http.get("/apis/policy/v1").json();
    boolean listed = false;
    for (JsonNode r : gv.path("resources")) {
      listed |= r.path("name").asText().equals("poddisruptionbudgets");
    }
    assertTrue(listed, gv.toString());
    runningPod("st-0", Map.of("app", "st"), true);
    runningPod("st-1", Map.of("app", "st"), true);
    runningPod("st-2", Map.of("app", "st"), false);
    createPod(NS, "other", Map.of("app", "other"));
    client
        .policy()
        .v1()
        .podDisruptionBudget()
        .resource(budget("st", "st", new IntOrString(1)))
        .create();
    await(
        Duration.ofSeconds(5),
        () -> getBudget("st").getStatus() != null,
        "status written by the disruption controller");
    var st = getBudget("st").getStatus();
    assertEquals(3, st.getExpectedPods());
    assertEquals(2, st.getCurrentHealthy(), "the not-Ready pod is not healthy");
    assertEquals(1, st.getDesiredHealthy());
    assertEquals(1, st.getDisruptionsAllowed());
    assertEquals("SufficientPods", st.getConditions().get(0).getReason());

    // A pod turning Ready changes the budget at once (no controller lag to wait out here).
    client
        .pods()
        .inNamespace(NS)
        .withName("st-2")
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.STRATEGIC_MERGE),
            "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}");
    assertEquals(2, getBudget("st").getStatus().getDisruptionsAllowed());
  }

  @Test
  void evictionIsRefusedWith429WhenTheBudgetAllowsNoDisruption() {
    runningPod("web-0", Map.of("app", "web"), true);
    runningPod("web-1", Map.of("app", "web"), true);
    runningPod("web-2", Map.of("app", "web"), true);
    client
        .policy()
        .v1()
        .podDisruptionBudget()
        .resource(budget("web", "web", new IntOrString(2)))
        .create();

    ApiHttp.Res first = evict("web-0");
    assertEquals(201, first.code(), first.body());
    Pod going = client.pods().inNamespace(NS).withName("web-0").get();
    assertNotNull(going.getMetadata().getDeletionTimestamp(), "bound: deleted gracefully");
    assertEquals(30L, going.getMetadata().getDeletionGracePeriodSeconds());
    PodCondition target =
        going.getStatus().getConditions().stream()
            .filter(c -> c.getType().equals("DisruptionTarget"))
            .findFirst()
            .orElseThrow();
    assertEquals("EvictionByEvictionAPI", target.getReason());

    ApiHttp.Res second = evict("web-1");
    assertEquals(429, second.code(), second.body());
    JsonNode status = second.json();
    assertEquals("TooManyRequests", status.path("reason").asText());
    assertEquals(
        "Cannot evict pod as it would violate the pod's disruption budget.",
        status.path("message").asText());
    JsonNode cause = status.path("details").path("causes").get(0);
    assertEquals("DisruptionBudget", cause.path("reason").asText());
    assertEquals(
        "The disruption budget web needs 2 healthy pods and has 2 currently",
        cause.path("message").asText());
    assertNull(
        client.pods().inNamespace(NS).withName("web-1").get().getMetadata().getDeletionTimestamp());

    try (KubernetesClient c = noRetryClient()) {
      assertFalse(c.pods().withName("web-2").evict(), "fabric8 reports a 429 as false");
    }
    // The kubelet finishing the first pod does not bring availability back: still 2 healthy.
    client.pods().inNamespace(NS).withName("web-0").withGracePeriod(0).delete();
    assertEquals(429, evict("web-1").code());
    // A pod that is not running yet costs no availability and goes at once.
    createPod(NS, "web-new", Map.of("app", "web"));
    assertEquals(201, evict("web-new").code());
    assertNull(client.pods().inNamespace(NS).withName("web-new").get());
  }

  @Test
  void unhealthyPodsMayGoWhileTheBudgetIsMet() {
    runningPod("sick-0", Map.of("app", "sick"), true);
    runningPod("sick-1", Map.of("app", "sick"), true);
    runningPod("sick-2", Map.of("app", "sick"), false);
    client
        .policy()
        .v1()
        .podDisruptionBudget()
        .resource(budget("sick", "sick", new IntOrString(2)))
        .create();
    assertEquals(0, getBudget("sick").getStatus().getDisruptionsAllowed());
    assertEquals(429, evict("sick-0").code(), "a healthy pod is protected");
    ApiHttp.Res r = evict("sick-2");
    assertEquals(201, r.code(), "the unready one is not: " + r.body());
  }

  @Test
  void maxUnavailableNeedsControllersAsOnACluster() {
    runningPod("bare-0", Map.of("app", "bare"), true);
    runningPod("bare-1", Map.of("app", "bare"), true);
    PodDisruptionBudget b = budget("bare", "bare", null);
    b.getSpec().setMaxUnavailable(new IntOrString(1));
    client.policy().v1().podDisruptionBudget().resource(b).create();
    var st = getBudget("bare").getStatus();
    assertEquals(0, st.getDisruptionsAllowed());
    assertEquals("SyncFailed", st.getConditions().get(0).getReason());
    assertEquals(429, evict("bare-0").code());

    for (String n : new String[] {"owned-0", "owned-1"}) {
      runningPod(
          new PodBuilder(pod(n, Map.of("app", "owned")))
              .editMetadata()
              .withOwnerReferences(
                  new OwnerReferenceBuilder()
                      .withApiVersion("apps/v1")
                      .withKind("ReplicaSet")
                      .withName("owned")
                      .withUid("rs-uid")
                      .withController(true)
                      .build())
              .endMetadata()
              .build(),
          true);
    }
    PodDisruptionBudget o = budget("owned", "owned", null);
    o.getSpec().setMaxUnavailable(new IntOrString("50%"));
    client.policy().v1().podDisruptionBudget().resource(o).create();
    assertEquals(1, getBudget("owned").getStatus().getDisruptionsAllowed());
    assertEquals(201, evict("owned-0").code());
    assertEquals(429, evict("owned-1").code());
  }

  @Test
  void twoBudgetsForOnePodAre500AndBothLimitsAre422() {
    runningPod("twice", Map.of("app", "twice"), true);
    client
        .policy()
        .v1()
        .podDisruptionBudget()
        .resource(budget("twice-a", "twice", new IntOrString(0)))
        .create();
    client
        .policy()
        .v1()
        .podDisruptionBudget()
        .resource(budget("twice-b", "twice", new IntOrString(0)))
        .create();
    ApiHttp.Res r = evict("twice");
    assertEquals(500, r.code(), r.body());
    assertTrue(r.body().contains("more than one PodDisruptionBudget"), r.body());

    PodDisruptionBudget both = budget("both", "x", new IntOrString(1));
    both.getSpec().setMaxUnavailable(new IntOrString(1));
    KubernetesClientException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            KubernetesClientException.class,
            () -> client.policy().v1().podDisruptionBudget().resource(both).create());
    assertEquals(422, e.getCode());
    assertTrue(e.getMessage().contains("cannot be both set"), e.getMessage());
  }
}
