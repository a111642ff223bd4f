package dev.tandem.devstack.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.tandem.activities.KubeActivitiesImpl;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Tandem's {@code markEvictable} activity against the local API, under a budget shaped like the one
 * Tandem keeps per NodeSet ({@code maxUnavailable: 0} over the pods without {@code
 * tandem.dev/evictable}): the label is what decides whether the Eviction API lets a pod go.
 */
class EvictableLabelTest extends ApiTestBase {
  private static final String NS = "default";
  private static final String LABEL = "tandem.dev/evictable";

  /** The CRD's uid: a dependent anchored to anything else dangles and the collector takes it. */
  private static String crdUid() {
    return client
        .apiextensions()
        .v1()
        .customResourceDefinitions()
        .withName("nodesets.tandem.dev")
        .get()
        .getMetadata()
        .getUid();
  }

  private static Pod runningSlurmdPod(String name, String nodeSetUid) {
    Pod p =
        new PodBuilder(pod(name, Map.of("tandem.dev/nodeset", "ev")))
            .editMetadata()
            .withOwnerReferences(
                new OwnerReferenceBuilder()
                    .withApiVersion("tandem.dev/v1alpha1")
                    .withKind("NodeSet")
                    .withName("ev")
                    .withUid(nodeSetUid)
                    .withController(true)
                    .build())
            .endMetadata()
            .build();
    Pod created = client.pods().inNamespace(NS).resource(p).create();
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
            "{\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\","
                + "\"status\":\"True\"}]}}");
    return created;
  }

  private static ApiHttp.Res evict(String pod) {
    return http.post(
        "/api/v1/namespaces/default/pods/" + pod + "/eviction",
        "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\",\"metadata\":{\"name\":\""
            + pod
            + "\"}}");
  }

  private static String label(String pod) {
    Map<String, String> l =
        client.pods().inNamespace(NS).withName(pod).get().getMetadata().getLabels();
    return l == null ? null : l.get(LABEL);
  }

  @Test
  void theLabelAloneLetsTheEvictionThroughAndItsRemovalProtectsAgain() {
    client
        .policy()
        .v1()
        .podDisruptionBudget()
        .inNamespace(NS)
        .resource(
            new PodDisruptionBudgetBuilder()
                .withNewMetadata()
                .withName("ev-slurm-jobs")
                .endMetadata()
                .withNewSpec()
                .withMaxUnavailable(new IntOrString(0))
                .withUnhealthyPodEvictionPolicy("IfHealthyBudget")
                .withNewSelector()
                .addToMatchLabels("tandem.dev/nodeset", "ev")
                .addNewMatchExpression()
                .withKey(LABEL)
                .withOperator("DoesNotExist")
                .endMatchExpression()
                .endSelector()
                .endSpec()
                .build())
        .create();
    String setUid =
        client
            .resources(TestNodeSet.class)
            .inNamespace(NS)
            .resource(TestNodeSet.of("ev", 2))
            .create()
            .getMetadata()
            .getUid();
    String uid = runningSlurmdPod("ev-0", setUid).getMetadata().getUid();
    runningSlurmdPod("ev-1", setUid);
    KubeActivitiesImpl kube = new KubeActivitiesImpl(client, Clock.systemUTC());
    await(Duration.ofSeconds(5), () -> evict("ev-0").code() == 429, "protected at first");

    kube.markEvictable(NS, "ev-0", "another-uid", true);
    assertNull(label("ev-0"), "another pod's uid: untouched");
    kube.markEvictable(NS, "ev-0", uid, true);
    kube.markEvictable(NS, "ev-0", uid, true); // idempotent
    assertEquals("true", label("ev-0"));
    kube.markEvictable(NS, "ev-0", uid, false);
    kube.markEvictable(NS, "ev-0", uid, false); // idempotent: no label, nothing to remove
    assertNull(label("ev-0"));
    assertEquals(429, evict("ev-0").code(), "protected again");

    kube.markEvictable(NS, "ev-0", uid, true);
    ApiHttp.Res r = evict("ev-0");
    assertEquals(201, r.code(), r.body());
    assertEquals(429, evict("ev-1").code(), "the unlabelled pod stays protected");
    kube.markEvictable(NS, "nobody", null, false); // absent pod: done
  }

  /** Releasing a deleted NodeSet deletes its budget (kept until then by the CRD anchor). */
  @Test
  void releasingTheNodeSetDeletesItsBudgetAndNoOtherOne() {
    TestNodeSet n = TestNodeSet.of("rel", 1);
    n.getMetadata().setFinalizers(java.util.List.of(dev.tandem.k8s.api.NodeSet.FINALIZER));
    String uid =
        client
            .resources(TestNodeSet.class)
            .inNamespace(NS)
            .resource(n)
            .create()
            .getMetadata()
            .getUid();
    for (String[] b : new String[][] {{"rel-slurm-jobs", uid}, {"rel-other", uid}}) {
      client
          .policy()
          .v1()
          .podDisruptionBudget()
          .inNamespace(NS)
          .resource(
              new PodDisruptionBudgetBuilder()
                  .withNewMetadata()
                  .withName(b[0])
                  .addNewOwnerReference()
                  .withApiVersion("tandem.dev/v1alpha1")
                  .withKind("NodeSet")
                  .withName("rel")
                  .withUid(b[1])
                  .withController(true)
                  .endOwnerReference()
                  .addNewOwnerReference()
                  .withApiVersion("apiextensions.k8s.io/v1")
                  .withKind("CustomResourceDefinition")
                  .withName("nodesets.tandem.dev")
                  .withUid(crdUid())
                  .endOwnerReference()
                  .endMetadata()
                  .withNewSpec()
                  .withMaxUnavailable(new IntOrString(0))
                  .endSpec()
                  .build())
          .create();
    }
    client.resources(TestNodeSet.class).inNamespace(NS).withName("rel").delete();
    KubeActivitiesImpl kube = new KubeActivitiesImpl(client, Clock.systemUTC());
    kube.releaseNodeSet(new dev.tandem.workflows.model.NodeSetRef(NS, "rel"));
    assertNull(
        client
            .policy()
            .v1()
            .podDisruptionBudget()
            .inNamespace(NS)
            .withName("rel-slurm-jobs")
            .get());
    assertEquals(
        "rel-other",
        client
            .policy()
            .v1()
            .podDisruptionBudget()
            .inNamespace(NS)
            .withName("rel-other")
            .get()
            .getMetadata()
            .getName(),
        "only <nodeset>-slurm-jobs is Tandem's");
  }
}
