package dev.tandem.slurm.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmTransport.Request;
import dev.tandem.slurm.testing.FakeSlurmTransport;
import dev.tandem.slurm.v0044.SlurmClientV0044;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every response fixture is a body the real server could send: it validates against the response
 * schema of the operation it answers and has no key the spec does not know. Error bodies are
 * checked against {@code openapi_resp} (meta, errors, warnings), because slurmrestd skips the data
 * dump on failure and so omits the keys the success schema requires (e.g. nodes, last_update).
 */
class FixturesMatchSpecTest {

  static Stream<Arguments> fixtures() {
    return Stream.of("v0.0.44", "v0.0.41").flatMap(FixturesMatchSpecTest::forVersion);
  }

  private static Stream<Arguments> forVersion(String v) {
    String p = "/slurm/" + v;
    Stream<Arguments> common =
        Stream.of(
            op(v, "nodes.json", "GET", p + "/nodes/", 200),
            op(v, "node-drained.json", "GET", p + "/node/gpu-a-1", 200),
            op(v, "jobs.json", "GET", p + "/jobs/", 200),
            op(v, "jobs-unchanged.json", "GET", p + "/jobs/", 200),
            op(v, "jobs-placeholders.json", "GET", p + "/jobs/", 200),
            op(v, "job-running.json", "GET", p + "/job/102", 200),
            op(v, "job-unknown.json", "GET", p + "/job/999999", 404),
            op(v, "submit-ok.json", "POST", p + "/job/submit", 200),
            op(v, "submit-bad-partition.json", "POST", p + "/job/submit", 500),
            op(v, "node-update-ok.json", "POST", p + "/node/gpu-a-1", 200),
            op(v, "ping.json", "GET", p + "/ping/", 200),
            schema(v, "node-unknown.json", "openapi_resp"),
            schema(v, "node-update-unknown.json", "openapi_resp"),
            schema(v, "node-resume-in-service.json", "openapi_resp"),
            schema(v, "node-delete-static.json", "openapi_resp"),
            schema(v, "node-delete-busy.json", "openapi_resp"),
            schema(v, "nodes-partitions-500.json", "openapi_resp"),
            schema(v, "slurmctld-down.json", "openapi_resp"));
    Stream<Arguments> specific =
        v.equals("v0.0.44")
            ? Stream.of(
                op(v, "cancel-ok.json", "DELETE", p + "/job/4242", 200),
                op(v, "cancel-already-done.json", "DELETE", p + "/job/4242", 200),
                op(v, "cancel-invalid-id.json", "DELETE", p + "/job/999999", 200),
                op(v, "cancel-cannot-alter.json", "DELETE", p + "/job/4243", 200),
                op(v, "cancel-access-denied.json", "DELETE", p + "/job/4244", 200),
                op(v, "cancel-slurmctld-unreachable.json", "DELETE", p + "/job/4242", 500),
                op(v, "ping-no-pong.json", "GET", p + "/ping/", 200),
                op(v, "licenses.json", "GET", p + "/licenses/", 200),
                op(v, "licenses-slurmctld-down.json", "GET", p + "/licenses/", 502),
                schema(v, "jobs-slurmctld-down.json", "openapi_resp"),
                schema(v, "job-slurmctld-down.json", "openapi_resp"),
                op(v, "licenses-bad-token.json", "GET", p + "/licenses/", 511),
                op(v, "submit-unknown-node.json", "POST", p + "/job/submit", 500),
                op(v, "node-create-ok.json", "POST", p + "/new/node/", 200),
                op(v, "node-create-exists.json", "POST", p + "/new/node/", 500),
                op(v, "node-create-bad-line.json", "POST", p + "/new/node/", 500),
                schema(v, "auth-511.json", "openapi_resp"))
            : Stream.of(
                op(v, "cancel-ok.json", "DELETE", p + "/job/4242", 200),
                op(v, "cancel-already-done.json", "DELETE", p + "/job/4242", 200),
                op(v, "cancel-invalid-id.json", "DELETE", p + "/job/999999", 404),
                op(v, "ping-no-pong.json", "GET", p + "/ping/", 200),
                schema(v, "auth-bad-token.json", "openapi_resp"));
    return Stream.concat(common, specific);
  }

  private static Arguments op(String v, String file, String method, String path, int status) {
    return Arguments.of(v, file, method, path, status, null);
  }

  private static Arguments schema(String v, String file, String schemaSuffix) {
    return Arguments.of(v, file, null, null, 0, v + "_" + schemaSuffix);
  }

  /**
   * An answer of Slurm 25.11.7's slurmrestd as recorded (issue 51): {@code GET /job/{id}} for a
   * pending job, with {@code "job_resources": null} where the spec types an object. The job's other
   * fields follow {@code jobs.json}. The check must accept what the real server sends ({@link
   * OpenApiSpec#NULLABLE} says why), and the client must read it.
   */
  @Test
  void anAnswerRecordedFromSlurm25117Validates() {
    String p = "/slurm/v0.0.44";
    String body = FakeSlurmTransport.resource(p + "/recorded-25.11.7-job-pending.json");
    JsonNode job = SpecOperations.parse(body).path("jobs").get(0);
    assertTrue(job.get("job_resources").isNull(), "the recorded null");
    assertEquals("25.11.7", SpecOperations.parse(body).at("/meta/slurm/release").asText());
    SpecOperations ops = new SpecOperations(OpenApiSpec.load("v0.0.44"));
    Request get = new Request("GET", p + "/job/12", null, null);
    assertEquals(List.of(), ops.responseProblems(get, 200, body));
    FakeSlurmTransport t = new FakeSlurmTransport().on("GET", p + "/job/12", 200, body);
    SlurmJob read = new SlurmClientV0044(t).getJob(12);
    assertTrue(read.pending(), read.toString());
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("fixtures")
  void fixtureValidates(
      String version, String file, String method, String path, int status, String schema) {
    String body = FakeSlurmTransport.resource("/slurm/" + version + "/" + file);
    OpenApiSpec spec = OpenApiSpec.load(version);
    List<String> problems;
    if (schema != null) {
      problems = spec.responseProblems(schema, SpecOperations.parse(body));
    } else {
      SpecOperations ops = new SpecOperations(spec);
      problems = ops.responseProblems(new Request(method, path, null, null), status, body);
    }
    assertEquals(List.of(), problems, version + "/" + file);
    JsonNode parsed = SpecOperations.parse(body);
    assertFalse(parsed.path("meta").isMissingNode(), "every slurmrestd answer carries meta");
  }
}
