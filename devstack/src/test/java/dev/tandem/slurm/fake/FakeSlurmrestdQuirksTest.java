package dev.tandem.slurm.fake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.slurm.HttpSlurmTransport;
import dev.tandem.slurm.Jwt;
import dev.tandem.slurm.SlurmClientConfig;
import dev.tandem.slurm.SlurmTransport;
import dev.tandem.slurm.SlurmTransport.Request;
import dev.tandem.slurm.SlurmTransport.Response;
import dev.tandem.slurm.fake.FakeSlurmrestd.NodeSpec;
import dev.tandem.slurm.spec.OpenApiSpec;
import dev.tandem.slurm.spec.SpecCheckedTransport;
import dev.tandem.slurm.spec.SpecOperations;
import dev.tandem.slurm.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the v0.0.44 adapter hides from the contract suite, seen on the wire: 25.11's incremental
 * listing answers (304 for nodes, 500 "Unable to query partitions", {@code jobs: []} with a zero
 * {@code last_update} and a warning), 511 + 1007 for a bad token, MinJobAge purges. Every answer is
 * checked against the v0.0.44 spec. The clock is manual; ticks are run by the test. Also 25.11.7's
 * {@code "job_resources": null} for a job without an allocation, and what the adapter never lets
 * happen: 25.11.7's delete of a node it is asked to create again.
 */
class FakeSlurmrestdQuirksTest {
  private static final String P = "/slurm/v0.0.44";
  private static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes();
  private final MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
  private FakeSlurmrestd fake;
  private SlurmTransport http;

  @BeforeEach
  void start() {
    fake =
        FakeSlurmrestd.start(
            FakeSlurmrestd.Options.defaults(KEY)
                .withClock(clock, Duration.ofHours(1))
                .withMinJobAge(Duration.ofSeconds(300)),
            List.of(FakePartition.all("low", 1)),
            List.of(new NodeSpec("n1", 4, 4000, List.of("ib"), "gpu:2")));
    http =
        transport(Jwt.mintHs256(KEY, "root", clock.instant(), clock.instant().plusSeconds(3600)));
  }

  @AfterEach
  void stop() {
    fake.close();
  }

  private SpecCheckedTransport transport(String token) {
    SlurmClientConfig cfg =
        SlurmClientConfig.fromEnv(
            Map.of("SLURM_REST_URL", fake.url().toString(), "SLURM_JWT", token));
    return new SpecCheckedTransport(
        new HttpSlurmTransport(cfg), new SpecOperations(OpenApiSpec.load("v0.0.44")));
  }

  private Response get(String path, String updateTime) {
    Map<String, List<String>> q =
        updateTime == null ? Map.of() : Map.of("update_time", List.of(updateTime));
    return http.send(Request.get(P + path, q));
  }

  private static JsonNode json(Response r) {
    return SpecOperations.parse(r.body());
  }

  @Test
  void nodeListingIs304ThenThePartitionsQuirkThenFullAfterAPartitionChange() {
    clock.advance(Duration.ofSeconds(5));
    Response full = get("/nodes/", null);
    assertEquals(200, full.status());
    String since = json(full).path("last_update").path("number").asText();
    assertEquals(Long.toString(clock.instant().getEpochSecond()), since);
    assertEquals(304, get("/nodes/", since).status(), "nothing changed");

    http.send(Request.post(P + "/node/n1", "{\"state\":[\"DRAIN\"],\"reason\":\"x\"}"));
    clock.advance(Duration.ofSeconds(2));
    Response quirk = get("/nodes/", since);
    assertEquals(500, quirk.status(), "nodes changed, partitions did not");
    assertEquals(-1, json(quirk).path("errors").get(0).path("error_number").asInt());

    fake.registerNode("d1", 8, 8000, List.of(), "");
    Response changed = get("/nodes/", since);
    assertEquals(200, changed.status(), "a new node changes its partitions too");
    assertEquals(2, json(changed).path("nodes").size());
  }

  @Test
  void unchangedJobListingIsAnEmptyListWithZeroLastUpdateAndAWarning() {
    clock.advance(Duration.ofSeconds(5));
    String since = json(get("/jobs/", null)).path("last_update").path("number").asText();
    Response quiet = get("/jobs/", since);
    assertEquals(200, quiet.status());
    JsonNode q = json(quiet);
    assertEquals(0, q.path("jobs").size());
    assertEquals(0, q.path("last_update").path("number").asLong());
    assertTrue(
        q.path("warnings").get(0).path("description").asText().startsWith("No job changes"),
        q.toString());

    long id = submit();
    JsonNode after = json(get("/jobs/", since));
    assertEquals(id, after.path("jobs").get(0).path("job_id").asLong());
    assertTrue(after.path("last_update").path("number").asLong() > 0);
  }

  @Test
  void badTokenIs511With1007AndNoTokenIs401() {
    byte[] other = "fedcba9876543210fedcba9876543210".getBytes();
    Instant now = clock.instant();
    Response forged =
        transport(Jwt.mintHs256(other, "root", now, now.plusSeconds(60)))
            .send(Request.get(P + "/ping/"));
    assertEquals(511, forged.status());
    assertEquals(1007, json(forged).path("errors").get(0).path("error_number").asInt());
    Response expired =
        transport(Jwt.mintHs256(KEY, "root", now.minusSeconds(120), now.minusSeconds(60)))
            .send(Request.get(P + "/ping/"));
    assertEquals(511, expired.status(), "expired by the server's clock");
  }

  @Test
  void endedJobsStayForMinJobAgeThenArePurged() {
    long id = submit();
    http.send(Request.delete(P + "/job/" + id, Map.of()));
    assertEquals(
        "CANCELLED",
        json(get("/job/" + id, null)).path("jobs").get(0).path("job_state").get(0).asText());
    clock.advance(Duration.ofSeconds(299));
    fake.tick();
    assertEquals(200, get("/job/" + id, null).status(), "kept for MinJobAge");
    clock.advance(Duration.ofSeconds(2));
    fake.tick();
    Response gone = get("/job/" + id, null);
    assertEquals(404, gone.status());
    assertEquals(2017, json(gone).path("errors").get(0).path("error_number").asInt());
    assertEquals(0, json(get("/jobs/", null)).path("jobs").size());
  }

  @Test
  void runningJobPastItsTimeLimitEndsTimeout() {
    long id = submit();
    assertEquals("RUNNING", state(id));
    clock.advance(Duration.ofSeconds(61));
    fake.tick();
    assertEquals("TIMEOUT", state(id));
  }

  @Test
  void completedJobKeepsItsExitCode() {
    long ok = submit();
    long bad = submit();
    fake.completeJob(ok, 0);
    fake.completeJob(bad, 3);
    assertEquals("COMPLETED", state(ok));
    assertEquals("FAILED", state(bad));
    JsonNode exit = json(get("/job/" + bad, null)).path("jobs").get(0).path("exit_code");
    assertEquals(3, exit.path("return_code").path("number").asInt());
  }

  @Test
  void aJobWithoutAnAllocationHasANullJobResourcesAs25117Sends() {
    http.send(Request.post(P + "/node/n1", "{\"state\":[\"DRAIN\"],\"reason\":\"x\"}"));
    long id = submit();
    JsonNode pending = json(get("/job/" + id, null)).path("jobs").get(0);
    assertEquals("PENDING", pending.path("job_state").get(0).asText());
    assertTrue(pending.get("job_resources").isNull(), pending.toString());
    JsonNode listed = json(get("/jobs/", null)).path("jobs").get(0);
    assertTrue(listed.get("job_resources").isNull(), listed.toString());

    http.send(Request.post(P + "/node/n1", "{\"state\":[\"UNDRAIN\"]}"));
    fake.tick();
    JsonNode running = json(get("/job/" + id, null)).path("jobs").get(0);
    assertEquals("RUNNING", running.path("job_state").get(0).asText());
    assertFalse(running.has("job_resources"), "an allocation's object is not modelled");
  }

  @Test
  void createOfAnExistingNameAnswers2168AndDeletesTheNodeAs25117Does() {
    String line = "{\"node_conf\":\"NodeName=d1 State=FUTURE CPUs=8 RealMemory=8000 Gres=gpu:2\"}";
    Response created = http.send(Request.post(P + "/new/node/", line));
    assertEquals(200, created.status(), created.body());
    assertTrue(fake.knows("d1"));
    assertEquals(8, json(get("/node/d1", null)).path("nodes").get(0).path("cpus").asInt());

    Response again = http.send(Request.post(P + "/new/node/", line));
    assertEquals(500, again.status());
    assertEquals(2168, json(again).path("errors").get(0).path("error_number").asInt());
    assertFalse(fake.knows("d1"), "25.11.7 deletes the existing node");

    Response notFuture = http.send(Request.post(P + "/new/node/", line.replace("FUTURE", "IDLE")));
    assertEquals(2028, json(notFuture).path("errors").get(0).path("error_number").asInt());
    Response noName = http.send(Request.post(P + "/new/node/", "{\"node_conf\":\"CPUs=8\"}"));
    assertEquals(-1, json(noName).path("errors").get(0).path("error_number").asInt());
  }

  private String state(long id) {
    return json(get("/job/" + id, null)).path("jobs").get(0).path("job_state").get(0).asText();
  }

  private long submit() {
    String body =
        "{\"job\":{\"name\":\"t\",\"partition\":\"low\",\"minimum_nodes\":1,\"maximum_nodes\":1,"
            + "\"time_limit\":{\"set\":true,\"infinite\":false,\"number\":1},"
            + "\"environment\":[\"A=1\"],\"script\":\"#!/bin/sh\\nsleep 1\","
            + "\"current_working_directory\":\"/tmp\"}}";
    Response r = http.send(Request.post(P + "/job/submit", body));
    assertEquals(200, r.status(), r.body());
    return json(r).path("job_id").asLong();
  }
}
