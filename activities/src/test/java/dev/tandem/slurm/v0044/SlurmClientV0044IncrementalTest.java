package dev.tandem.slurm.v0044;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.SlurmClient.Listing;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmNode;
import dev.tandem.slurm.SlurmUnauthorizedException;
import dev.tandem.slurm.SlurmUnavailableException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Incremental listings: update_time, 304, the 500 fallback, and the "no job changes" answer. */
class SlurmClientV0044IncrementalTest extends V0044AnswersTestBase {
  static final Instant SINCE = Instant.ofEpochSecond(1763699000L);
  static final Instant T0 = Instant.ofEpochSecond(1763700000L);

  @Test
  void unchangedNodesAre304() {
    fake.on("GET", P + "/nodes/", 304, "");
    Listing<SlurmNode> l = client.listNodes(SINCE);
    assertFalse(l.changed());
    assertEquals(List.of(), l.items());
    assertEquals(SINCE, l.updateTime(), "the caller keeps polling from the same point");
    Map<String, List<String>> q = fake.last().query();
    assertEquals(List.of("1763699000"), q.get("update_time"));
    assertEquals(List.of("ALL", "DETAIL", "MIXED", "FUTURE"), q.get("flags"));
  }

  @Test
  void changedNodesComeInFull() {
    fake.onResource("GET", P + "/nodes/", 200, P + "/nodes.json");
    Listing<SlurmNode> l = client.listNodes(SINCE);
    assertTrue(l.changed());
    assertEquals(6, l.items().size());
    assertEquals(T0, l.updateTime());
  }

  @Test
  void partitionsUnchanged500FallsBackToAFullListing() {
    fake.onResource("GET", P + "/nodes/", 500, P + "/nodes-partitions-500.json");
    fake.onResource("GET", P + "/nodes/", 200, P + "/nodes.json");
    Listing<SlurmNode> l = client.listNodes(SINCE);
    assertTrue(l.changed());
    assertEquals(6, l.items().size());
    assertEquals(T0, l.updateTime());
    assertEquals(2, fake.requests().size());
    assertTrue(fake.requests().get(0).query().containsKey("update_time"));
    assertFalse(fake.requests().get(1).query().containsKey("update_time"));
    assertEquals(List.of("ALL", "DETAIL", "MIXED", "FUTURE"), fake.last().query().get("flags"));
  }

  @Test
  void fallbackThatFailsTooReportsTheSecondFailure() {
    fake.onResource("GET", P + "/nodes/", 500, P + "/nodes-partitions-500.json");
    fake.onResource("GET", P + "/nodes/", 500, P + "/slurmctld-down.json");
    SlurmUnavailableException e =
        assertThrows(SlurmUnavailableException.class, () -> client.listNodes(SINCE));
    assertTrue(e.getMessage().contains("1800"), e.getMessage());
    assertEquals(2, fake.requests().size(), "one fallback, no loop");
  }

  @Test
  void slurmctldDownOnAnIncrementalListingIsNotRetried() {
    fake.onResource("GET", P + "/nodes/", 500, P + "/slurmctld-down.json");
    assertThrows(SlurmUnavailableException.class, () -> client.listNodes(SINCE));
    assertEquals(1, fake.requests().size());
  }

  @Test
  void badTokenOnAnIncrementalListingIsNotRetriedWithoutUpdateTime() {
    fake.onResource("GET", P + "/nodes/", 511, P + "/auth-511.json");
    assertThrows(SlurmUnauthorizedException.class, () -> client.listNodes(SINCE));
    assertEquals(1, fake.requests().size());
  }

  @Test
  void unchangedJobsAre200WithAWarningAndNoJobs() {
    fake.onResource("GET", P + "/jobs/", 200, P + "/jobs-unchanged.json");
    Listing<SlurmJob> l = client.listJobs(SINCE);
    assertFalse(l.changed());
    assertEquals(SINCE, l.updateTime());
    assertEquals(Map.of("update_time", List.of("1763699000")), fake.last().query());
  }

  @Test
  void unchangedJobsMayAlsoBe304() {
    fake.on("GET", P + "/jobs/", 304, "");
    assertFalse(client.listJobs(SINCE).changed());
  }

  @Test
  void anEmptyButRealJobListIsAChange() {
    // The last job was purged: jobs is empty but last_update is set and no warning is given.
    fake.on(
        "GET",
        P + "/jobs/",
        200,
        "{\"jobs\":[],\"last_backfill\":{\"set\":true,\"infinite\":false,\"number\":1763699990},"
            + "\"last_update\":{\"set\":true,\"infinite\":false,\"number\":1763700000},"
            + "\"errors\":[],\"warnings\":[]}");
    Listing<SlurmJob> l = client.listJobs(SINCE);
    assertTrue(l.changed());
    assertEquals(List.of(), l.items());
    assertEquals(T0, l.updateTime());
  }

  @Test
  void changedJobsComeInFull() {
    fake.onResource("GET", P + "/jobs/", 200, P + "/jobs.json");
    Listing<SlurmJob> l = client.listJobs(SINCE);
    assertTrue(l.changed());
    assertEquals(8, l.items().size());
  }
}
