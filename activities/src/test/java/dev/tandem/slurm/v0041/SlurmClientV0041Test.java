package dev.tandem.slurm.v0041;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmClient.Listing;
import dev.tandem.slurm.SlurmException;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmNode;
import dev.tandem.slurm.SlurmNotFoundException;
import dev.tandem.slurm.SlurmRejectedException;
import dev.tandem.slurm.SlurmUnauthorizedException;
import dev.tandem.slurm.SlurmUnsupportedException;
import dev.tandem.slurm.spec.OpenApiSpec;
import dev.tandem.slurm.spec.SpecOperations;
import dev.tandem.slurm.testing.FakeSlurmTransport;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * v0.0.41 (Slurm 24.05): same shapes as v0.0.44 for what Tandem reads, different answers for
 * cancel, bad tokens and ping. Fixtures validate against the v0.0.41 spec (FixturesMatchSpecTest).
 */
class SlurmClientV0041Test {
  static final String P = "/slurm/v0.0.41";
  static final Instant T0 = Instant.ofEpochSecond(1763700000L);

  private final FakeSlurmTransport fake =
      new FakeSlurmTransport().checkedAgainst(new SpecOperations(OpenApiSpec.load("v0.0.41")));
  private final SlurmClient client = new SlurmClientV0041(fake);

  private <T extends SlurmException> T fails(Class<T> type, Runnable call) {
    SlurmException e = assertThrows(SlurmException.class, call::run);
    return assertInstanceOf(type, e, e.toString());
  }

  @Test
  void speaksV0041Paths() {
    assertEquals(SlurmClient.ApiVersion.V0_0_41, client.apiVersion());
    fake.onResource("GET", P + "/ping/", 200, P + "/ping.json");
    SlurmClient.Ping p = client.ping();
    assertTrue(p.controllerUp(), "v0.0.41 has only pinged: UP");
    assertEquals("24.05.8", p.slurmVersion());
    assertEquals("prod", p.cluster());
  }

  @Test
  void nodesParseLikeV0044() {
    fake.onResource("GET", P + "/nodes/", 200, P + "/nodes.json");
    Listing<SlurmNode> l = client.listNodes(null);
    Map<String, SlurmNode> n =
        l.items().stream().collect(Collectors.toMap(SlurmNode::name, Function.identity()));
    assertEquals(T0, l.updateTime());
    assertEquals(Set.of("DRAIN"), n.get("gpu-a-1").flags());
    assertEquals("tandem:update: image v2", n.get("gpu-a-1").reason());
    assertNull(n.get("gpu-a-0").reason());
    assertTrue(n.get("gpu-a-2").notResponding());
    assertEquals("24.05.8", n.get("gpu-a-0").slurmdVersion());
    assertTrue(n.get("cpu-b-0").future());
  }

  @Test
  void jobsParseLikeV0044() {
    fake.onResource("GET", P + "/jobs/", 200, P + "/jobs.json");
    Map<Long, SlurmJob> j =
        client.listJobs(null).items().stream()
            .collect(Collectors.toMap(SlurmJob::id, Function.identity()));
    assertEquals(List.of("gpu-a-3", "gpu-a-4"), j.get(102L).nodeList());
    assertEquals(Set.of("COMPLETING"), j.get(103L).stateFlags());
    assertEquals("PREEMPTED", j.get(104L).state());
    assertEquals(1, j.get(105L).restartCount());
    assertEquals(new SlurmJob.Request(2, 8, 65536, "gpu:2", null), j.get(102L).request());
  }

  @Test
  void incrementalListingsBehaveLikeV0044() {
    Instant since = T0.minusSeconds(60);
    fake.on("GET", P + "/nodes/", 304, "");
    assertFalse(client.listNodes(since).changed());
    fake.onResource("GET", P + "/nodes/", 500, P + "/nodes-partitions-500.json");
    fake.onResource("GET", P + "/nodes/", 200, P + "/nodes.json");
    assertTrue(client.listNodes(since).changed());
    fake.onResource("GET", P + "/jobs/", 200, P + "/jobs-unchanged.json");
    assertFalse(client.listJobs(since).changed());
  }

  @Test
  void cancelAnswersAreAPlainResponse() {
    fake.onResource("DELETE", P + "/job/4242", 200, P + "/cancel-ok.json");
    fake.onResource("DELETE", P + "/job/4242", 200, P + "/cancel-already-done.json");
    fake.onResource("DELETE", P + "/job/999999", 404, P + "/cancel-invalid-id.json");
    client.cancel(4242, "SIGTERM");
    client.cancel(4242, null); // a warning only: already ended
    client.cancel(999999, null); // 404 + 2017: purged, nothing to do
    assertEquals(
        Map.of("signal", List.of("SIGTERM"), "flags", List.of("FULL_JOB")),
        fake.requests().get(0).query());
  }

  @Test
  void cancelRefusalIsTyped() {
    fake.on(
        "DELETE",
        P + "/job/5",
        500,
        "{\"errors\":[{\"error_number\":2002,\"error\":\"Access/permission denied\","
            + "\"description\":\"unable to send signal Killed to JobId=5\"}],\"warnings\":[]}");
    assertEquals(
        2002, fails(SlurmRejectedException.class, () -> client.cancel(5, null)).errorNumber());
  }

  @Test
  void badTokenIs500With1007() {
    fake.onResource("GET", P + "/nodes/", 500, P + "/auth-bad-token.json");
    fails(SlurmUnauthorizedException.class, () -> client.listNodes(null));
    fake.onResource("GET", P + "/nodes/", 500, P + "/auth-bad-token.json");
    fails(SlurmUnauthorizedException.class, () -> client.listNodes(T0));
    assertEquals(2, fake.requests().size(), "no fallback listing for a credentials error");
    fake.on("GET", P + "/jobs/", 401, "Authentication failure");
    fails(SlurmUnauthorizedException.class, () -> client.listJobs(null));
  }

  @Test
  void notFoundAndUnsupportedMapLikeV0044() {
    fake.onResource("GET", P + "/node/gpu-z-9", 200, P + "/node-unknown.json");
    fails(SlurmNotFoundException.class, () -> client.getNode("gpu-z-9"));
    fake.onResource("GET", P + "/job/999999", 404, P + "/job-unknown.json");
    fails(SlurmNotFoundException.class, () -> client.getJob(999999));
    fake.onResource("DELETE", P + "/node/gpu-a-1", 500, P + "/node-delete-static.json");
    fails(SlurmUnsupportedException.class, () -> client.deleteNode("gpu-a-1"));
    fake.onResource("POST", P + "/job/submit", 500, P + "/submit-bad-partition.json");
    assertEquals(
        2000,
        fails(
                SlurmRejectedException.class,
                () -> client.submit(dev.tandem.slurm.JobSubmission.builder("x").build()))
            .errorNumber());
  }

  @Test
  void pingWithARefusedTokenIsUnauthorizedNotDown() {
    // Same probe as v0.0.44; 24.05 reports a refused token as HTTP 500 with error 1007.
    fake.onResource("GET", P + "/ping/", 200, P + "/ping-no-pong.json");
    fake.onResource("GET", P + "/licenses/", 500, P + "/auth-bad-token.json");
    fails(SlurmUnauthorizedException.class, client::ping);
    fake.onResource("GET", P + "/ping/", 200, P + "/ping-no-pong.json");
    fake.onResource("GET", P + "/licenses/", 500, P + "/slurmctld-down.json");
    assertFalse(client.ping().controllerUp());
  }
}
