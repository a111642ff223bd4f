package dev.tandem.slurm.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.slurm.SlurmTransport.Request;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The checker itself: it must accept what the spec allows and report what it does not. */
class OpenApiSpecTest {
  private final OpenApiSpec v44 = OpenApiSpec.load("v0.0.44");
  private final OpenApiSpec v41 = OpenApiSpec.load("v0.0.41");
  private final SpecOperations ops44 = new SpecOperations(v44);

  private static JsonNode json(String s) {
    return SpecOperations.parse(s);
  }

  @Test
  void acceptsAMinimalValidSubmission() {
    JsonNode ok =
        json("{\"job\":{\"name\":\"x\",\"environment\":[\"A=1\"],\"script\":\"#!/bin/sh\"}}");
    assertEquals(List.of(), v44.requestBodyProblems("v0.0.44_job_submit_req", ok));
  }

  @Test
  void reportsATypoThatJsonSchemaAloneWouldAccept() {
    JsonNode typo = json("{\"job\":{\"name\":\"x\",\"partiton\":\"gpu\"}}");
    assertEquals(List.of(), v44.schemaErrors("v0.0.44_job_submit_req", typo));
    List<String> p = v44.requestBodyProblems("v0.0.44_job_submit_req", typo);
    assertEquals(1, p.size(), p.toString());
    assertTrue(p.get(0).startsWith("$.job.partiton: not a property"), p.get(0));
  }

  @Test
  void reportsWrongTypesAndEnumValues() {
    JsonNode bad =
        json("{\"job\":{\"name\":\"x\",\"environment\":{\"A\":\"1\"},\"shared\":[\"exclusive\"]}}");
    List<String> p = v44.schemaErrors("v0.0.44_job_submit_req", bad);
    assertTrue(p.stream().anyMatch(s -> s.contains("environment")), p.toString());
    assertTrue(p.stream().anyMatch(s -> s.contains("shared")), p.toString());
  }

  @Test
  void reportsDeprecatedAndRemovedFields() {
    JsonNode exclusive = json("{\"job\":{\"name\":\"x\",\"exclusive\":\"true\"}}");
    List<String> p41 = v41.requestBodyProblems("v0.0.41_job_submit_req", exclusive);
    assertTrue(p41.contains("$.job.exclusive: deprecated in v0.0.41"), p41.toString());
    List<String> p44 = v44.requestBodyProblems("v0.0.44_job_submit_req", exclusive);
    assertTrue(p44.get(0).startsWith("$.job.exclusive: not a property"), p44.toString());
  }

  @Test
  void nestsSlashRequirementsInsteadOfDemandingLiteralKeys() {
    JsonNode entry =
        json(
            "{\"error\":{\"string\":\"s\",\"code\":2021,\"message\":\"m\"},\"step_id\":\"1\","
                + "\"job_id\":{\"set\":true,\"infinite\":false,\"number\":1},"
                + "\"federation\":{\"sibling\":\"\"}}");
    assertEquals(List.of(), v44.schemaErrors("v0.0.44_kill_jobs_resp_job", entry));
    JsonNode missingCode = entry.deepCopy();
    ((com.fasterxml.jackson.databind.node.ObjectNode) missingCode.get("error")).remove("code");
    List<String> p = v44.schemaErrors("v0.0.44_kill_jobs_resp_job", missingCode);
    assertTrue(p.stream().anyMatch(s -> s.contains("code")), p.toString());
  }

  @Test
  void acceptsANullJobResourcesAsTheRealServerSendsButNoOtherNull() {
    // Slurm 25.11.7 sends "job_resources": null for a job without an allocation.
    JsonNode pending = json("{\"job_id\":7,\"job_resources\":null}");
    assertEquals(List.of(), v44.schemaErrors("v0.0.44_job_info", pending));
    assertEquals(List.of(), v41.schemaErrors("v0.0.41_job_info", pending));
    JsonNode wrong = json("{\"job_id\":7,\"job_resources\":\"none\"}");
    List<String> p = v44.schemaErrors("v0.0.44_job_info", wrong);
    assertTrue(p.stream().allMatch(e -> e.contains("job_resources")) && !p.isEmpty(), "" + p);
    JsonNode otherNull = json("{\"job_id\":7,\"exit_code\":null}");
    p = v44.schemaErrors("v0.0.44_job_info", otherNull);
    assertEquals(1, p.size(), p.toString());
    assertTrue(p.get(0).contains("exit_code"), p.get(0));
  }

  @Test
  void matchesLiteralPathsBeforeTemplates() {
    assertEquals(
        "/slurm/v0.0.44/job/submit",
        ops44.find("POST", "/slurm/v0.0.44/job/submit").orElseThrow().template());
    assertEquals(
        "/slurm/v0.0.44/job/{job_id}",
        ops44.find("POST", "/slurm/v0.0.44/job/17").orElseThrow().template());
    assertTrue(ops44.find("PUT", "/slurm/v0.0.44/job/17").isEmpty());
  }

  @Test
  void checksQueryParametersOneValueAtATime() {
    Request repeated =
        Request.get("/slurm/v0.0.44/nodes/", Map.of("flags", List.of("ALL", "MIXED")));
    assertEquals(List.of(), ops44.requestProblems(repeated));
    Request commaList = Request.get("/slurm/v0.0.44/nodes/", Map.of("flags", List.of("ALL,MIXED")));
    assertEquals(1, ops44.requestProblems(commaList).size());
    Request unknown = Request.get("/slurm/v0.0.44/nodes/", Map.of("since", List.of("1")));
    assertTrue(ops44.requestProblems(unknown).get(0).contains("'since' is not declared"));
  }

  @Test
  void reportsMissingAndUnexpectedBodies() {
    Request noBody = new Request("POST", "/slurm/v0.0.44/node/n1", null, null);
    assertTrue(ops44.requestProblems(noBody).get(0).contains("body is expected"));
    Request extra = new Request("GET", "/slurm/v0.0.44/ping/", null, "{}");
    assertTrue(ops44.requestProblems(extra).get(0).contains("takes no body"));
    Request nowhere = Request.get("/slurm/v0.0.44/nodes");
    assertTrue(ops44.requestProblems(nowhere).get(0).contains("no such operation"));
  }
}
