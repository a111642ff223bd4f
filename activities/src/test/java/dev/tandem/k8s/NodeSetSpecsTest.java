package dev.tandem.k8s;

import static dev.tandem.k8s.Fixtures.json;
import static dev.tandem.k8s.Fixtures.with;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.tandem.k8s.api.NodeSet;
import dev.tandem.workflows.model.DrainPolicy;
import dev.tandem.workflows.model.NodeSetSpecView;
import dev.tandem.workflows.model.SlurmSettings;
import dev.tandem.workflows.model.TimeoutAction;
import dev.tandem.workflows.model.UpdateStrategy;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeSetSpecsTest {

  @Test
  void convertsTheExample() {
    NodeSetSpecView v = NodeSetSpecs.toView(Fixtures.example());
    assertEquals(List.of(), v.problems());
    assertEquals(4, v.generation());
    assertEquals("0b5c7f5e-1111-4b7e-9a55-000000000001", v.uid());
    assertEquals(3, v.replicas());
    assertEquals(
        new SlurmSettings(List.of("gpu"), List.of("h100", "ib"), "gpu:h100:8", 10),
        v.template().slurm());
    assertTrue(v.template().revision().matches("[0-9a-f]{10}"), v.template().revision());
    assertTrue(v.template().templateJson().contains("tandem/slurmd:22.05"));
    assertEquals(UpdateStrategy.rolling("1"), v.updateStrategy());
    assertEquals(new DrainPolicy(7200, TimeoutAction.WAIT), v.updateDrain());
    assertEquals(new DrainPolicy(1800, TimeoutAction.FORCE), v.scaleDownDrain());
  }

  @Test
  void typedGenericAndRawJsonAgree() {
    GenericKubernetesResource generic =
        Json.MAPPER.convertValue(Fixtures.example(), GenericKubernetesResource.class);
    NodeSet typed = Json.MAPPER.convertValue(Fixtures.example(), NodeSet.class);
    NodeSetSpecView fromJson = NodeSetSpecs.toView(Fixtures.example().toString());
    assertEquals(fromJson, NodeSetSpecs.toView(generic));
    // The typed model re-serializes the template (e.g. drops nothing it does not know, but may
    // write fields in another order): the revision must not notice.
    assertEquals(fromJson, NodeSetSpecs.toView(typed));
  }

  @Test
  void defaultsWhenOptionalPartsAreMissing() {
    ObjectNode n = Fixtures.example();
    ObjectNode spec = (ObjectNode) n.get("spec");
    spec.remove(List.of("slurm", "updateStrategy", "drain", "scaleDown"));
    NodeSetSpecView v = NodeSetSpecs.toView(n);
    assertEquals(List.of(), v.problems());
    assertEquals(SlurmSettings.none(), v.template().slurm());
    assertEquals(UpdateStrategy.rolling("1"), v.updateStrategy());
    assertEquals(DrainPolicy.waitForever(), v.updateDrain());
    assertEquals(DrainPolicy.waitForever(), v.scaleDownDrain());
  }

  @Test
  void scaleDownFallsBackToDrain() {
    ObjectNode n = with(Fixtures.example(), "spec.scaleDown", null);
    assertEquals(
        new DrainPolicy(7200, TimeoutAction.WAIT), NodeSetSpecs.toView(n).scaleDownDrain());
  }

  @Test
  void maxUnavailableAsNumberOrPercentage() {
    String p = "spec.updateStrategy.rollingUpdate.maxUnavailable";
    assertEquals(
        "2",
        NodeSetSpecs.toView(with(Fixtures.example(), p, json("2")))
            .updateStrategy()
            .maxUnavailable());
    assertEquals(
        "25%",
        NodeSetSpecs.toView(with(Fixtures.example(), p, TextNode.valueOf("25%")))
            .updateStrategy()
            .maxUnavailable());
    ObjectNode onDelete =
        with(Fixtures.example(), "spec.updateStrategy", json("{\"type\":\"OnDelete\"}"));
    NodeSetSpecView v = NodeSetSpecs.toView(onDelete);
    assertEquals(List.of(), v.problems());
    assertTrue(v.updateStrategy().onDelete());
  }

  @Test
  void topologyKeyAndDomainOrder() {
    String p = "spec.updateStrategy.rollingUpdate";
    NodeSetSpecView v =
        NodeSetSpecs.toView(
            with(
                Fixtures.example(),
                p,
                json(
                    "{\"maxUnavailable\":2,\"topologyKey\":\"topology.tandem.dev/block\","
                        + "\"domainOrder\":\"name\"}")));
    assertEquals(List.of(), v.problems());
    assertEquals(
        UpdateStrategy.rolling("2").byTopology("topology.tandem.dev/block", "name"),
        v.updateStrategy());
    v = NodeSetSpecs.toView(with(Fixtures.example(), p + ".topologyKey", TextNode.valueOf("rack")));
    assertEquals("rack", v.updateStrategy().topologyKey());
    assertTrue(v.updateStrategy().idleFirst());
    assertProblem(
        p + ".topologyKey",
        TextNode.valueOf("block id"),
        p + ".topologyKey: \"block id\" is not a node label key like topology.tandem.dev/block");
    assertProblem(p + ".topologyKey", json("3"), p + ".topologyKey: 3 is not a node label key");
    assertProblem(
        p,
        json("{\"topologyKey\":\"rack\",\"domainOrder\":\"random\"}"),
        p + ".domainOrder: \"random\" must be idleFirst or name");
    assertProblem(
        p,
        json("{\"domainOrder\":\"name\"}"),
        p + ".domainOrder: needs topologyKey, the node label naming the domain");
  }

  @Test
  void eachProblemNamesTheFieldAndWhatToDo() {
    assertProblem(
        "spec.drain.timeout",
        TextNode.valueOf("5 parsecs"),
        "spec.drain.timeout: \"5 parsecs\" is not a duration like 30m or 2h");
    assertProblem(
        "spec.drain.timeout", TextNode.valueOf("0s"), "spec.drain.timeout: \"0s\" is zero");
    assertProblem(
        "spec.scaleDown.onTimeout",
        TextNode.valueOf("Kill"),
        "spec.scaleDown.onTimeout: \"Kill\" must be Wait or Force");
    assertProblem(
        "spec.drain",
        json("{\"onTimeout\":\"Force\"}"),
        "spec.drain.onTimeout: Force needs a timeout");
    assertProblem("spec.replicas", json("-2"), "spec.replicas: -2 is negative");
    assertProblem(
        "spec.replicas",
        TextNode.valueOf("three"),
        "spec.replicas: \"three\" is text; write a whole number without quotes");
    assertProblem("spec.replicas", null, "spec.replicas: missing");
    assertProblem(
        "spec.updateStrategy.type",
        TextNode.valueOf("Rolling"),
        "spec.updateStrategy.type: \"Rolling\" must be RollingUpdate or OnDelete");
    assertProblem(
        "spec.updateStrategy",
        json("{\"type\":\"OnDelete\",\"rollingUpdate\":{}}"),
        "spec.updateStrategy.rollingUpdate: only allowed with type RollingUpdate");
    assertProblem(
        "spec.updateStrategy.rollingUpdate.maxUnavailable",
        TextNode.valueOf("0%"),
        "spec.updateStrategy.rollingUpdate.maxUnavailable: \"0%\" must be a number from 1");
    assertProblem(
        "spec.slurm.features",
        json("[\"h100\",\"a b\"]"),
        "spec.slurm.features[1]: \"a b\" is not a Slurm name");
    assertProblem(
        "spec.slurm.gres",
        TextNode.valueOf("gpu 8"),
        "spec.slurm.gres: \"gpu 8\" is not a GRES list");
    assertProblem(
        "spec.slurm.weight", json("0"), "spec.slurm.weight: 0 must be a whole number from 1");
    assertProblem("spec.replica", json("3"), "spec.replica: unknown field");
    assertProblem(
        "spec.template.spec.containers", json("[]"), "spec.template.spec.containers: empty");
    assertProblem(
        "spec.template.spec.containers",
        json("[{\"name\":\"slurmd\"}]"),
        "spec.template.spec.containers[0].image: missing");
    assertProblem(
        "metadata.name", TextNode.valueOf("GPU.a"), "metadata.name: \"GPU.a\" must be at most 50");
    assertProblem(
        "metadata.name",
        TextNode.valueOf("a".repeat(51)),
        "metadata.name: \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\" must be at most 50");
  }

  @Test
  void anUnreadableTemplateGivesNoTemplateButAProblem() {
    NodeSetSpecView v =
        NodeSetSpecs.toView(
            with(Fixtures.example(), "spec.template.spec.containers", TextNode.valueOf("slurmd")));
    assertNull(v.template());
    assertTrue(
        v.problems().stream()
            .anyMatch(p -> p.startsWith("spec.template.spec.containers: cannot be read")),
        v.problems().toString());
    // the rest is still read, so the workflow can tell what else changed
    assertEquals(3, v.replicas());
  }

  @Test
  void garbageInputsGiveProblemsNotExceptions() {
    assertTrue(
        NodeSetSpecs.toView("{not json")
            .problems()
            .get(0)
            .startsWith("the NodeSet is not valid JSON"));
    assertEquals(
        List.of("the NodeSet is not a JSON object"), NodeSetSpecs.toView("[1,2]").problems());
    assertEquals(List.of("the NodeSet is missing"), NodeSetSpecs.toView((NodeSet) null).problems());
    NodeSetSpecView noSpec = NodeSetSpecs.toView(json("{\"metadata\":{\"name\":\"a\"}}"));
    assertEquals(
        List.of("spec: missing; a NodeSet needs spec.replicas and spec.template"),
        noSpec.problems());
  }

  /**
   * "Never throws", checked broadly: every node of the example replaced in turn by values of every
   * JSON type. Bounded: one pass over the example's nodes (a few dozen) times six values.
   */
  @Test
  void neverThrowsWhateverAFieldHolds() {
    List<JsonNode> junk =
        List.of(
            json("null"), json("-7"), json("\"x y\""), json("[]"), json("{}"), json("[{\"a\":1}]"));
    List<String> paths = Fixtures.paths(Fixtures.example());
    assertTrue(paths.size() > 30, "paths: " + paths.size());
    int converted = 0;
    for (String path : paths) {
      for (JsonNode j : junk) {
        NodeSetSpecView v = NodeSetSpecs.toView(Fixtures.withPointer(Fixtures.example(), path, j));
        assertNotNull(v, path);
        assertTrue(
            v.problems().stream().noneMatch(p -> p.startsWith("internal error")),
            path + "=" + j + ": " + v.problems());
        converted++;
      }
    }
    assertEquals(paths.size() * junk.size(), converted);
  }

  @Test
  void revisionFollowsTemplateAndSlurmSettingsOnly() {
    String base = NodeSetSpecs.toView(Fixtures.example()).template().revision();
    String image =
        NodeSetSpecs.toView(
                with(
                    Fixtures.example(),
                    "spec.template.spec.containers",
                    json("[{\"name\":\"slurmd\",\"image\":\"tandem/slurmd:23.02\"}]")))
            .template()
            .revision();
    String gres =
        NodeSetSpecs.toView(
                with(Fixtures.example(), "spec.slurm.gres", TextNode.valueOf("gpu:h100:4")))
            .template()
            .revision();
    String replicas =
        NodeSetSpecs.toView(with(Fixtures.example(), "spec.replicas", json("7")))
            .template()
            .revision();
    String features =
        NodeSetSpecs.toView(
                with(Fixtures.example(), "spec.slurm.features", json("[\"ib\",\"h100\",\"ib\"]")))
            .template()
            .revision();
    assertNotEquals(base, image);
    assertNotEquals(base, gres);
    assertEquals(base, replicas, "scaling does not change the revision");
    assertEquals(base, features, "feature order and duplicates mean nothing to Slurm");
  }

  private static void assertProblem(String path, JsonNode value, String expectedPrefix) {
    NodeSetSpecView v = NodeSetSpecs.toView(with(Fixtures.example(), path, value));
    assertTrue(
        v.problems().stream().anyMatch(p -> p.startsWith(expectedPrefix)),
        "expected a problem starting with <" + expectedPrefix + "> but got " + v.problems());
  }
}
