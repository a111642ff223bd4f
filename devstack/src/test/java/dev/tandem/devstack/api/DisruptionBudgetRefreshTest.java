package dev.tandem.devstack.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetStatus;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Which budgets a pod write refreshes: those selecting the pod as it was or as it is now, at once;
 * a pod no budget selects lists no pods and writes no budget (it used to list, parse and rewrite
 * every budget of its namespace), and a refresh that changes nothing writes nothing.
 */
class DisruptionBudgetRefreshTest extends ApiTestBase {
  private static final String NS = "pdb-refresh";

  @BeforeAll
  static void namespace() {
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
        .create();
  }

  private static void runningPod(String name, String app) {
    createPod(NS, name, Map.of("app", app));
    ApiHttp.Res b =
        http.post(
            "/api/v1/namespaces/" + NS + "/pods/" + name + "/binding",
            "{\"kind\":\"Binding\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\""
                + name
                + "\"},\"target\":{\"kind\":\"Node\",\"name\":\"n1\"}}");
    assertEquals(201, b.code(), b.body());
    patchPod(
        name,
        PatchType.STRATEGIC_MERGE,
        "{\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}",
        true);
  }

  private static void patchPod(String name, PatchType type, String patch, boolean status) {
    var pod = client.pods().inNamespace(NS).withName(name);
    (status ? pod.subresource("status") : pod).patch(PatchContext.of(type), patch);
  }

  private static void budget(String app) {
    PodDisruptionBudget b =
        new PodDisruptionBudgetBuilder()
            .withNewMetadata()
            .withName(app)
            .endMetadata()
            .withNewSpec()
            .withMinAvailable(new IntOrString(1))
            .withNewSelector()
            .addToMatchLabels("app", app)
            .endSelector()
            .endSpec()
            .build();
    client.policy().v1().podDisruptionBudget().inNamespace(NS).resource(b).create();
  }

  private static PodDisruptionBudget getBudget(String name) {
    return client.policy().v1().podDisruptionBudget().inNamespace(NS).withName(name).get();
  }

  private static long listings() {
    return server.budgets().podListings();
  }

  @Test
  void aPodNoBudgetSelectsListsNoPodsAndWritesNoBudget() {
    budget("web");
    runningPod("web-0", "web");
    PodDisruptionBudget before = getBudget("web");
    assertEquals(1, before.getStatus().getExpectedPods());
    assertEquals(1, before.getStatus().getCurrentHealthy());

    long listed = listings();
    runningPod("db-0", "db");
    patchPod("db-0", PatchType.JSON_MERGE, "{\"metadata\":{\"annotations\":{\"a\":\"b\"}}}", false);
    client.pods().inNamespace(NS).withName("db-0").delete(); // bound: graceful
    client.pods().inNamespace(NS).withName("db-0").withGracePeriod(0).delete();
    assertEquals(listed, listings(), "no budget selects db-0: no pod listing");
    assertEquals(
        before.getMetadata().getResourceVersion(),
        getBudget("web").getMetadata().getResourceVersion(),
        "nor a budget write");
  }

  @Test
  void aSelectedPodRefreshesItsBudgetAtOnceAsItWasOrIsNow() {
    budget("api");
    runningPod("api-0", "api");
    String rv = getBudget("api").getMetadata().getResourceVersion();

    long listed = listings();
    patchPod(
        "api-0", PatchType.JSON_MERGE, "{\"metadata\":{\"annotations\":{\"a\":\"b\"}}}", false);
    assertEquals(listed + 1, listings(), "api-0 is selected: its budget is refreshed");
    assertEquals(
        rv,
        getBudget("api").getMetadata().getResourceVersion(),
        "a refresh that changes nothing writes nothing");

    runningPod("api-1", "api");
    PodDisruptionBudgetStatus st = getBudget("api").getStatus();
    assertEquals(2, st.getExpectedPods());
    assertEquals(2, st.getCurrentHealthy());
    assertEquals(1, st.getDisruptionsAllowed());

    // Leaving the selector counts: the budget sees api-1 as it was.
    patchPod(
        "api-1", PatchType.JSON_MERGE, "{\"metadata\":{\"labels\":{\"app\":\"other\"}}}", false);
    st = getBudget("api").getStatus();
    assertEquals(1, st.getExpectedPods());
    assertEquals(0, st.getDisruptionsAllowed());
    // Entering it too.
    patchPod("api-1", PatchType.JSON_MERGE, "{\"metadata\":{\"labels\":{\"app\":\"api\"}}}", false);
    assertEquals(2, getBudget("api").getStatus().getExpectedPods());
  }
}
