package dev.tandem.slurm.modern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.slurm.JobSubmission;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmTransport.Request;
import dev.tandem.slurm.spec.OpenApiSpec;
import dev.tandem.slurm.spec.SpecOperations;
import dev.tandem.slurm.testing.FakeSlurmTransport;
import dev.tandem.slurm.v0041.SlurmClientV0041;
import dev.tandem.slurm.v0044.SlurmClientV0044;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every request body the adapters build, sent through a transport that checks it against the
 * official spec of the adapter's version: the operation exists, the body validates against its
 * request schema, and it has no key the schema does not define and none it marks deprecated
 * (slurmrestd rejects unknown keys; a typo would otherwise pass JSON Schema).
 */
class RequestsMatchSpecTest {

  record Adapter(String version, FakeSlurmTransport fake, SlurmClient client) {
    String p() {
      return "/slurm/" + version;
    }

    JsonNode lastBody() {
      return SpecOperations.parse(fake.last().jsonBody());
    }
  }

  static Adapter adapter(String version) {
    FakeSlurmTransport fake =
        new FakeSlurmTransport().checkedAgainst(new SpecOperations(OpenApiSpec.load(version)));
    SlurmClient c =
        version.equals("v0.0.44") ? new SlurmClientV0044(fake) : new SlurmClientV0041(fake);
    return new Adapter(version, fake, c);
  }

  static JobSubmission.Builder base() {
    return JobSubmission.builder("tandem:ml/trainer-0").comment("schedule/ml/trainer-0/6f1c");
  }

  /** Submit variants: name, builder, and what the body must say. */
  static Stream<Arguments> submissions() {
    List<Arguments> variants =
        List.of(
            Arguments.of("placeholder defaults", base(), (Consumer<JsonNode>) j -> {}),
            Arguments.of(
                "pinned node list",
                base().nodeList(List.of("gpu-a-3", "gpu-a-4")),
                (Consumer<JsonNode>)
                    j -> {
                      assertEquals("[\"gpu-a-3\",\"gpu-a-4\"]", j.get("required_nodes").toString());
                      assertEquals(2, j.get("minimum_nodes").asInt());
                      assertEquals(2, j.get("maximum_nodes").asInt());
                    }),
            Arguments.of(
                "node count with exclusions",
                base().nodeCount(4).excludeNodes(List.of("gpu-a-2")),
                (Consumer<JsonNode>)
                    j -> {
                      assertEquals(4, j.get("minimum_nodes").asInt());
                      assertEquals(4, j.get("maximum_nodes").asInt());
                      assertEquals("[\"gpu-a-2\"]", j.get("excluded_nodes").toString());
                      assertFalse(j.has("required_nodes"));
                    }),
            Arguments.of(
                "GRES, CPUs and memory per node",
                base()
                    .nodeCount(2)
                    .gresPerNode("gpu:h100:2")
                    .cpusPerNode(16)
                    .memoryMbPerNode(65536L),
                (Consumer<JsonNode>)
                    j -> {
                      assertEquals("gres/gpu:h100:2", j.get("tres_per_node").asText());
                      assertEquals(2, j.get("tasks").asInt());
                      assertEquals(1, j.get("tasks_per_node").asInt());
                      assertEquals(16, j.get("cpus_per_task").asInt());
                      assertEquals(
                          "{\"set\":true,\"infinite\":false,\"number\":65536}",
                          j.get("memory_per_node").toString());
                    }),
            Arguments.of(
                "exclusive",
                base().exclusive(true),
                (Consumer<JsonNode>) j -> assertEquals("[\"none\"]", j.get("shared").toString())),
            Arguments.of(
                "exclusive to the user",
                base().exclusivity(JobSubmission.Exclusivity.USER),
                (Consumer<JsonNode>) j -> assertEquals("[\"user\"]", j.get("shared").toString())),
            Arguments.of(
                "shared by default",
                base().exclusivity(JobSubmission.Exclusivity.NONE),
                (Consumer<JsonNode>) j -> assertFalse(j.has("shared"))),
            Arguments.of(
                "reservation and nice",
                base().reservation("maint").nice(-5),
                (Consumer<JsonNode>)
                    j -> {
                      assertEquals("maint", j.get("reservation").asText());
                      assertEquals(-5, j.get("nice").asInt());
                    }),
            Arguments.of(
                "no requeue",
                base().noRequeue(true),
                (Consumer<JsonNode>) j -> assertFalse(j.get("requeue").asBoolean(true))),
            Arguments.of(
                "QOS, account and partition",
                base().qos("high").account("ml").partition("gpu"),
                (Consumer<JsonNode>)
                    j -> {
                      assertEquals("high", j.get("qos").asText());
                      assertEquals("ml", j.get("account").asText());
                      assertEquals("gpu", j.get("partition").asText());
                    }),
            Arguments.of(
                "time limit",
                base().timeLimitMinutes(90L),
                (Consumer<JsonNode>)
                    j ->
                        assertEquals(
                            "{\"set\":true,\"infinite\":false,\"number\":90}",
                            j.get("time_limit").toString())),
            Arguments.of(
                "everything at once",
                base()
                    .partition("gpu")
                    .qos("high")
                    .account("ml")
                    .nodeList(List.of("gpu-a-3"))
                    .nodeCount(2)
                    .excludeNodes(List.of("gpu-a-2"))
                    .cpusPerNode(8)
                    .memoryMbPerNode(1024L)
                    .gresPerNode("gpu:2,nic:1")
                    .timeLimitMinutes(30L)
                    .exclusive(true)
                    .noRequeue(true)
                    .workingDirectory("/var/tmp")
                    .environment(Map.of("PATH", "/bin", "TANDEM_POD", "ml/trainer-0"))
                    .script("#!/bin/bash\nsleep 10\n"),
                (Consumer<JsonNode>)
                    j -> {
                      assertEquals("gres/gpu:2,gres/nic:1", j.get("tres_per_node").asText());
                      assertEquals(
                          "[\"PATH=/bin\",\"TANDEM_POD=ml/trainer-0\"]",
                          j.get("environment").toString());
                      assertEquals("/var/tmp", j.get("current_working_directory").asText());
                      assertEquals("#!/bin/bash\nsleep 10\n", j.get("script").asText());
                    }));
    return Stream.of("v0.0.44", "v0.0.41")
        .flatMap(
            v -> variants.stream().map(a -> Arguments.of(v, a.get()[0], a.get()[1], a.get()[2])));
  }

  @ParameterizedTest(name = "{0} submit: {1}")
  @MethodSource("submissions")
  void submitBodyMatchesSpec(
      String version, String what, JobSubmission.Builder b, Consumer<JsonNode> expect) {
    Adapter a = adapter(version);
    a.fake().onResource("POST", a.p() + "/job/submit", 200, a.p() + "/submit-ok.json");
    assertEquals(4242L, a.client().submit(b.build()));
    JsonNode body = a.lastBody();
    assertEquals(List.of("job"), fieldNames(body), "everything goes in job; script is in job too");
    JsonNode job = body.get("job");
    assertEquals("tandem:ml/trainer-0", job.get("name").asText());
    assertTrue(job.get("environment").isArray(), "environment is a K=V list and required");
    assertFalse(job.get("environment").isEmpty());
    assertTrue(job.get("script").asText().startsWith("#!"));
    assertEquals("/dev/null", job.get("standard_output").asText());
    assertEquals("/dev/null", job.get("standard_error").asText());
    for (String never :
        List.of(
            "argv", "exclusive", "oversubscribe", "nodes", "no_requeue", "user_id", "nodelist")) {
      assertFalse(job.has(never), never + " must never be sent");
    }
    expect.accept(job);
  }

  @ParameterizedTest(name = "{0} node updates")
  @ValueSource(strings = {"v0.0.44", "v0.0.41"})
  void nodeUpdateBodiesMatchSpec(String version) {
    Adapter a = adapter(version);
    String path = a.p() + "/node/gpu-a-1";
    for (int i = 0; i < 4; i++) {
      a.fake().onResource("POST", path, 200, a.p() + "/node-update-ok.json");
    }
    a.client().drain("gpu-a-1", "tandem:update: image v2");
    assertEquals(
        "{\"state\":[\"DRAIN\"],\"reason\":\"tandem:update: image v2\"}",
        a.fake().last().jsonBody());
    a.client().undrain("gpu-a-1");
    assertEquals("{\"state\":[\"UNDRAIN\"]}", a.fake().last().jsonBody());
    a.client().resume("gpu-a-1");
    assertEquals("{\"state\":[\"RESUME\"]}", a.fake().last().jsonBody());
    a.client().down("gpu-a-1", "tandem:remediation: xid 79");
    assertEquals(
        "{\"state\":[\"DOWN\"],\"reason\":\"tandem:remediation: xid 79\"}",
        a.fake().last().jsonBody());
    assertEquals(4, a.fake().requests().size());
    assertTrue(a.fake().drained());
  }

  @ParameterizedTest(name = "{0} every other request")
  @ValueSource(strings = {"v0.0.44", "v0.0.41"})
  void bodylessRequestsMatchSpec(String version) {
    Adapter a = adapter(version);
    String p = a.p();
    a.fake()
        .onResource("GET", p + "/ping/", 200, p + "/ping.json")
        .onResource("GET", p + "/nodes/", 200, p + "/nodes.json")
        .onResource("GET", p + "/node/gpu-a-1", 200, p + "/node-drained.json")
        .onResource("GET", p + "/jobs/", 200, p + "/jobs-unchanged.json")
        .onResource("GET", p + "/job/102", 200, p + "/job-running.json")
        .onResource("DELETE", p + "/job/4242", 200, p + "/cancel-ok.json")
        .onResource("DELETE", p + "/job/4242", 200, p + "/cancel-ok.json")
        .onResource("DELETE", p + "/node/gpu-a-9", 200, p + "/node-update-ok.json");
    a.client().ping();
    a.client().listNodes(java.time.Instant.ofEpochSecond(1763700000L));
    a.client().getNode("gpu-a-1");
    a.client().listJobs(java.time.Instant.ofEpochSecond(1763700000L));
    a.client().getJob(102);
    a.client().cancel(4242, null);
    a.client().cancel(4242, "SIGTERM");
    a.client().deleteNode("gpu-a-9");
    assertTrue(a.fake().drained());
    Request signal = a.fake().requests().get(6);
    assertEquals(
        Map.of("signal", List.of("SIGTERM"), "flags", List.of("FULL_JOB")), signal.query());
  }

  @org.junit.jupiter.api.Test
  void createNodeBodyMatchesV0044() {
    // Only v0.0.44 serves POST /new/node/ (CreateNodeTest covers the answers and v0.0.41).
    Adapter a = adapter("v0.0.44");
    a.fake().onResource("GET", a.p() + "/node/gpu-a-7", 200, a.p() + "/node-unknown.json");
    a.fake().onResource("POST", a.p() + "/new/node/", 200, a.p() + "/node-create-ok.json");
    a.client().createNode("NodeName=gpu-a-7 State=FUTURE CPUs=8 Gres=gpu:h100:8 Feature=h100,ib");
    JsonNode body = a.lastBody();
    assertEquals(List.of("node_conf"), fieldNames(body));
    assertEquals(
        "NodeName=gpu-a-7 State=FUTURE CPUs=8 Gres=gpu:h100:8 Feature=h100,ib",
        body.get("node_conf").asText());
  }

  private static List<String> fieldNames(JsonNode n) {
    List<String> out = new java.util.ArrayList<>();
    n.fieldNames().forEachRemaining(out::add);
    return out;
  }
}
