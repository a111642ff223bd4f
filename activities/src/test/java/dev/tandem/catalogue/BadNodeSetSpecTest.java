package dev.tandem.catalogue;

import static dev.tandem.k8s.Fixtures.json;
import static dev.tandem.k8s.Fixtures.with;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.tandem.k8s.Fixtures;
import dev.tandem.k8s.NodeSetSpecs;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.NodeSetRef;
import dev.tandem.workflows.model.NodeSetSnapshot;
import dev.tandem.workflows.model.NodeSetSpecView;
import dev.tandem.workflows.model.NodeSetStatusView;
import dev.tandem.workflows.model.Tuning;
import dev.tandem.workflows.nodeset.NodeSetWorkflow;
import dev.tandem.workflows.testing.FakeCluster;
import dev.tandem.workflows.testing.TandemWorkflows;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Bad-input catalogue (docs/reliability.md): malformed NodeSets, followed from the custom
 * resource's JSON (as the watcher reads it, where no API server schema caught it first) through
 * Tandem's converter into a running NodeSet workflow. Each test asserts the exact {@code
 * InvalidSpec} message the NodeSet then shows ({@code kubectl describe nds}, {@code tandem
 * status}), and that nothing else changed: the spec in force, the pods, the nodes. The valid spec
 * is re-applied after each one and clears the condition. What the API server itself refuses at
 * {@code kubectl apply} is in devstack's {@code BadNodeSetApplyTest}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BadNodeSetSpecTest {
  private static final String NS = "default";
  private static final Tuning TUNING = new Tuning(1, 10, 4000, 200, 120, false);

  private TestWorkflowEnvironment env;
  private FakeCluster cluster;
  private NodeSetWorkflow wf;
  private long generation = 10;
  private String revisionInForce;

  @BeforeAll
  void start() {
    env = TestWorkflowEnvironment.newInstance();
    env.registerSearchAttribute(Names.SA_NODESET, IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
    cluster = new FakeCluster();
    TandemWorkflows.register(env.newWorker(Names.TASK_QUEUE), cluster);
    env.start();
    NodeSetSpecView valid = NodeSetSpecs.toView(valid());
    assertEquals(List.of(), valid.problems());
    revisionInForce = valid.template().revision();
    wf =
        TandemWorkflows.startNodeSet(
            env.getWorkflowClient(), new NodeSetRef(NS, "gpu-a"), valid, TUNING);
    await("2 ready", 120, () -> ready(2));
  }

  @AfterAll
  void stop() {
    env.close();
  }

  /** The example with 2 replicas, at the next generation. */
  private ObjectNode valid() {
    ObjectNode n = with(Fixtures.example(), "spec.replicas", json("2"));
    ((ObjectNode) n.get("metadata")).put("generation", ++generation);
    return n;
  }

  private boolean ready(int n) {
    return TandemWorkflows.allReady(wf.status(), n);
  }

  private void await(String what, long maxSeconds, BooleanSupplier done) {
    for (long i = 0; i <= maxSeconds; i++) {
      if (done.getAsBoolean()) {
        return;
      }
      env.sleep(Duration.ofSeconds(1));
    }
    throw new AssertionError("timed out after " + maxSeconds + "s (virtual): " + what);
  }

  private NodeSetStatusView status() {
    return cluster.status(NS + "/gpu-a");
  }

  /**
   * Applies the example with {@code value} at {@code path}; returns the InvalidSpec message after
   * asserting that nothing else changed, then restores the valid spec.
   */
  private String invalidSpec(String path, JsonNode value) {
    ObjectNode bad = with(valid(), path, value);
    long badGeneration = generation;
    Map<String, Integer> creations = Map.of("gpu-a-0", 1, "gpu-a-1", 1);
    wf.specChanged(NodeSetSpecs.toView(bad));
    await(
        "InvalidSpec for generation " + badGeneration,
        60,
        () ->
            status().observedGeneration() == badGeneration
                && status().condition(Condition.INVALID_SPEC).statusTrue());
    env.sleep(Duration.ofSeconds(30)); // a resync: the workflow had every chance to act
    NodeSetStatusView st = status();
    NodeSetSnapshot snap = wf.status();
    assertEquals(2, snap.desiredReplicas(), "replicas in force unchanged");
    assertEquals(revisionInForce, st.updateRevision(), "template in force unchanged");
    assertEquals(2, snap.nodes().size());
    creations.forEach((pod, n) -> assertEquals(n, cluster.podCreations(pod), pod + " recreated"));
    assertEquals(2, cluster.pods().size(), "no pod created or deleted");
    assertTrue(ready(2), "nodes still ready");
    String message = st.condition(Condition.INVALID_SPEC).message();

    wf.specChanged(NodeSetSpecs.toView(valid()));
    await("valid again", 60, () -> !status().condition(Condition.INVALID_SPEC).statusTrue());
    return message;
  }

  private String invalidSpec(String path, String text) {
    return invalidSpec(path, TextNode.valueOf(text));
  }

  // ---- spec.slurm ----

  /** Slurm would read gpu:abc as one GPU of type "abc": refused, the count is required. */
  @Test
  void gresWithoutACount() {
    assertEquals(
        "spec.slurm.gres: \"gpu:abc\" is not a GRES list like gpu:h100:8 or gpu:8,nvme:1 (each"
            + " entry name[:type]:count, the count a number)",
        invalidSpec("spec.slurm.gres", "gpu:abc"));
  }

  @Test
  void gresWithASpace() {
    assertEquals(
        "spec.slurm.gres: \"gpu: 8\" is not a GRES list like gpu:h100:8 or gpu:8,nvme:1 (each"
            + " entry name[:type]:count, the count a number)",
        invalidSpec("spec.slurm.gres", "gpu: 8"));
  }

  @Test
  void emptyPartitionName() {
    assertEquals(
        "spec.slurm.partitions[1]: \"\" is not a Slurm name (letters, digits and _ . : + -, at"
            + " most 64)",
        invalidSpec("spec.slurm.partitions", json("[\"gpu\",\"\"]")));
  }

  @Test
  void featureNameWithAComma() {
    assertEquals(
        "spec.slurm.features[0]: \"h100,ib\" is not a Slurm name (letters, digits and _ . : + -,"
            + " at most 64)",
        invalidSpec("spec.slurm.features", json("[\"h100,ib\"]")));
  }

  @Test
  void weightZero() {
    assertEquals(
        "spec.slurm.weight: 0 must be a whole number from 1",
        invalidSpec("spec.slurm.weight", json("0")));
  }

  // ---- spec.replicas ----

  @Test
  void replicasNegative() {
    assertEquals(
        "spec.replicas: -1 is negative; use 0 or more", invalidSpec("spec.replicas", json("-1")));
  }

  /** Used to say "is required (a number >= 0)" as well, as if nothing had been written. */
  @Test
  void replicasNotANumber() {
    assertEquals(
        "spec.replicas: \"three\" is text; write a whole number without quotes, e.g. replicas: 3",
        invalidSpec("spec.replicas", "three"));
  }

  @Test
  void replicasHuge() {
    assertEquals(
        "spec.replicas: 100000 is more than 2000, the most nodes one NodeSet may have;"
            + " split the fleet into several NodeSets",
        invalidSpec("spec.replicas", json("100000")));
  }

  /**
   * 5,000 was accepted, and the NodeSet could then neither start its nodes (one workflow task) nor
   * continue as new (a 2 MiB payload).
   */
  @Test
  void replicasAboveWhatOneNodeSetCanCarry() {
    assertEquals(
        "spec.replicas: 5000 is more than 2000, the most nodes one NodeSet may have;"
            + " split the fleet into several NodeSets",
        invalidSpec("spec.replicas", json("5000")));
  }

  /** Used to say it "is not a whole number". */
  @Test
  void replicasBeyondAnyInteger() {
    assertEquals(
        "spec.replicas: 99999999999 is more than 2000, the most nodes one NodeSet may have;"
            + " split the fleet into several NodeSets",
        invalidSpec("spec.replicas", json("99999999999")));
  }

  @Test
  void replicasMissing() {
    assertEquals(
        "spec.replicas: missing; set the number of Slurm nodes (0 or more)",
        invalidSpec("spec.replicas", (JsonNode) null));
  }

  // ---- spec.updateStrategy ----

  private static final String MAX_UNAVAILABLE =
      " must be a number from 1 or a percentage from 1% to 100%, like 1 or \"25%\"";

  @Test
  void maxUnavailableAbove100Percent() {
    assertEquals(
        "spec.updateStrategy.rollingUpdate.maxUnavailable: \"150%\"" + MAX_UNAVAILABLE,
        invalidSpec("spec.updateStrategy.rollingUpdate.maxUnavailable", "150%"));
  }

  @Test
  void maxUnavailableMinusOne() {
    assertEquals(
        "spec.updateStrategy.rollingUpdate.maxUnavailable: \"-1\"" + MAX_UNAVAILABLE,
        invalidSpec("spec.updateStrategy.rollingUpdate.maxUnavailable", "-1"));
  }

  @Test
  void maxUnavailableText() {
    assertEquals(
        "spec.updateStrategy.rollingUpdate.maxUnavailable: \"abc\"" + MAX_UNAVAILABLE,
        invalidSpec("spec.updateStrategy.rollingUpdate.maxUnavailable", "abc"));
  }

  /** No surge: 0 would stop every rollout of a NodeSet that has nodes. */
  @Test
  void maxUnavailableZero() {
    assertEquals(
        "spec.updateStrategy.rollingUpdate.maxUnavailable: 0" + MAX_UNAVAILABLE,
        invalidSpec("spec.updateStrategy.rollingUpdate.maxUnavailable", json("0")));
  }

  @Test
  void topologyKeyNotALabelKey() {
    assertEquals(
        "spec.updateStrategy.rollingUpdate.topologyKey: \"block id\" is not a node label key like"
            + " topology.tandem.dev/block",
        invalidSpec("spec.updateStrategy.rollingUpdate.topologyKey", "block id"));
  }

  @Test
  void rollingUpdateWithOnDelete() {
    assertEquals(
        "spec.updateStrategy.rollingUpdate: only allowed with type RollingUpdate; remove it",
        invalidSpec("spec.updateStrategy.type", "OnDelete"));
  }

  // ---- spec.drain / spec.scaleDown ----

  @Test
  void drainTimeoutInParsecs() {
    assertEquals(
        "spec.drain.timeout: \"5 parsecs\" is not a duration like 30m or 2h (units s, m, h, d)",
        invalidSpec("spec.drain.timeout", "5 parsecs"));
  }

  @Test
  void drainTimeoutNegative() {
    assertEquals(
        "spec.drain.timeout: \"-5m\" is not a duration like 30m or 2h (units s, m, h, d)",
        invalidSpec("spec.drain.timeout", "-5m"));
  }

  @Test
  void drainTimeoutZero() {
    assertEquals(
        "spec.drain.timeout: \"0s\" is zero; leave timeout unset to wait without limit",
        invalidSpec("spec.drain.timeout", "0s"));
  }

  @Test
  void onTimeoutLater() {
    assertEquals(
        "spec.scaleDown.onTimeout: \"LATER\" must be Wait or Force",
        invalidSpec("spec.scaleDown.onTimeout", "LATER"));
  }

  /** A CEL rule on a real API server; the local API does not evaluate CEL. */
  @Test
  void forceWithoutTimeout() {
    assertEquals(
        "spec.drain.onTimeout: Force needs a timeout, e.g. timeout: 2h",
        invalidSpec("spec.drain", json("{\"onTimeout\":\"Force\"}")));
  }

  // ---- spec.autoscaling ----

  /** A CEL rule on a real API server; stored anyway where CEL is not evaluated. */
  @Test
  void autoscalingMinAboveMax() {
    assertEquals(
        "spec.autoscaling: minReplicas 5 is more than maxReplicas 2; raise maxReplicas or lower"
            + " minReplicas",
        invalidSpec("spec.autoscaling", json("{\"minReplicas\":5,\"maxReplicas\":2}")));
  }

  /** The schema's pattern lets 0s through; every node would go the moment it idles. */
  @Test
  void autoscalingIdleTimeZero() {
    assertEquals(
        "spec.autoscaling.idleTime: \"0s\" is zero; use at least 1s, or leave it unset for the"
            + " default 10m (to keep every node however long it idles, set minReplicas to"
            + " maxReplicas)",
        invalidSpec("spec.autoscaling", json("{\"maxReplicas\":4,\"idleTime\":\"0s\"}")));
  }

  @Test
  void autoscalingWithoutMaxReplicas() {
    assertEquals(
        "spec.autoscaling.maxReplicas: missing; set the most nodes the NodeSet may grow to, e.g."
            + " maxReplicas: 8",
        invalidSpec("spec.autoscaling", json("{\"minReplicas\":1}")));
  }

  // ---- spec.template ----

  /**
   * A near miss of a field the pod API has: refused up front with the field meant, instead of at
   * the first pod creation (or, on an API server without strict validation, silently dropped).
   */
  @Test
  void misspelledContainerField() {
    assertEquals(
        "spec.template.spec.containers[0].imagePullPolice: unknown field; did you mean"
            + " imagePullPolicy?",
        invalidSpec("spec.template.spec.containers", containerWith("imagePullPolice", "Always")));
  }

  @Test
  void misspelledPodSpecFieldInOtherCase() {
    assertEquals(
        "spec.template.spec.NodeSelector: unknown field; did you mean nodeSelector?",
        invalidSpec("spec.template.spec.NodeSelector", json("{\"gpu\":\"h100\"}")));
  }

  @Test
  void noContainerAtAll() {
    assertEquals(
        "spec.template.spec.containers: empty; add the slurmd container with a name and an image",
        invalidSpec("spec.template.spec.containers", json("[]")));
  }

  @Test
  void containerWithoutImage() {
    assertEquals(
        "spec.template.spec.containers[0].image: missing; set the image, e.g. a slurmd image",
        invalidSpec("spec.template.spec.containers", json("[{\"name\":\"slurmd\"}]")));
  }

  @Test
  void templateFieldOfTheWrongType() {
    assertEquals(
        "spec.template.spec.containers[0].ports: cannot be read as part of a pod template: Cannot"
            + " deserialize value of type `java.util.ArrayList<io.fabric8.kubernetes.api.model.ContainerPort>`"
            + " from String value (token `JsonToken.VALUE_STRING`)",
        invalidSpec("spec.template.spec.containers", containerWith("ports", "80")));
  }

  // ---- spec and metadata ----

  /** A real API server prunes an unknown field silently; the user meant something. */
  @Test
  void misspelledReplicas() {
    assertEquals(
        "spec.replica: unknown field; remove it (known fields: autoscaling, drain, remediation,"
            + " replicas, scaleDown, slurm, template, updateStrategy)",
        invalidSpec("spec.replica", json("3")));
  }

  /** Pod names gpu-a...-<ordinal> are host names (at most 63) and Slurm node names. */
  @Test
  void nameTooLongForPodNames() {
    String name = "gpu-" + "a".repeat(56);
    assertEquals(
        "metadata.name: \""
            + name.substring(0, 56)
            + "... must be at most 50 lower-case letters, digits and '-' (no dots): pod names"
            + " <name>-<ordinal> are also host names and Slurm node names; recreate the NodeSet"
            + " under such a name",
        invalidSpec("metadata.name", name));
  }

  // ---- passed on: what only the cluster can judge ----

  /**
   * A field Tandem's model does not know and that is no near miss may be newer than the model:
   * Tandem passes it to the pod, where the cluster's strict field validation judges it (devstack's
   * BadPodTemplateTest: a real API server's refusal).
   */
  @Test
  void fieldNewerThanTandemsModelIsPassedOn() {
    ObjectNode n = with(valid(), "spec.template.spec.hostnameOverride", TextNode.valueOf("node-7"));
    NodeSetSpecView v = NodeSetSpecs.toView(n);
    assertEquals(List.of(), v.problems());
    assertTrue(v.template().templateJson().contains("\"hostnameOverride\""));
  }

  /**
   * Tandem reads no annotation on a NodeSet: an unknown {@code tandem.dev/*} one (here a wish for a
   * pause that does not exist) is ignored, as Kubernetes tools ignore annotations they do not own.
   * Documented in docs/reliability.md.
   */
  @Test
  void unknownTandemAnnotationOnTheNodeSetIsIgnored() {
    ObjectNode n = valid();
    ((ObjectNode) n.get("metadata")).putObject("annotations").put("tandem.dev/paused", "true");
    NodeSetSpecView v = NodeSetSpecs.toView(n);
    assertEquals(List.of(), v.problems());
    assertEquals(revisionInForce, v.template().revision());
  }

  private static JsonNode containerWith(String field, String value) {
    ObjectNode c = (ObjectNode) Fixtures.example().at("/spec/template/spec/containers/0");
    c.put(field, value);
    return json("[" + c + "]");
  }
}
