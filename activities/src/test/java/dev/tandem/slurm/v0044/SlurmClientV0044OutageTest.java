package dev.tandem.slurm.v0044;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.SlurmClient.Ping;
import dev.tandem.slurm.SlurmUnavailableException;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * What a Slurm 25.11.7 slurmrestd answered with slurmctld stopped, one test per answer: {@code GET
 * /jobs/}, {@code /nodes/}, {@code /licenses/} → HTTP 502 + error 1800 (after ~10 s); {@code DELETE
 * /job/{id}} → 500 + error 1 (after ~10 s); {@code GET /job/{id}} → 500 + error −1 (after ~20 s).
 * Each is "unavailable" (retried), never "not found" or a refusal; the ping reads it as controller
 * down.
 */
class SlurmClientV0044OutageTest extends V0044AnswersTestBase {
  private static final Instant SINCE = Instant.ofEpochSecond(1763700000);

  @Test
  void jobListingIs502With1800() {
    fake.onResource("GET", P + "/jobs/", 502, P + "/jobs-slurmctld-down.json");
    SlurmUnavailableException e =
        fails(SlurmUnavailableException.class, () -> client.listJobs(null));
    assertTrue(e.getMessage().contains("1800"), e.getMessage());
    fake.onResource("GET", P + "/jobs/", 502, P + "/jobs-slurmctld-down.json");
    fails(SlurmUnavailableException.class, () -> client.listJobs(SINCE));
  }

  @Test
  void nodeListingIs502With1800AndAnIncrementalOneIsNotListedAgainInFull() {
    fake.onResource("GET", P + "/nodes/", 502, P + "/slurmctld-down.json");
    fails(SlurmUnavailableException.class, () -> client.listNodes(null));
    fake.onResource("GET", P + "/nodes/", 502, P + "/slurmctld-down.json");
    fails(SlurmUnavailableException.class, () -> client.listNodes(SINCE));
    assertEquals(2, fake.requests().size(), "no fallback listing: " + fake.requests());
  }

  @Test
  void licensesAre502With1800SoThePingSaysControllerDown() {
    fake.onResource("GET", P + "/ping/", 200, P + "/ping-no-pong.json");
    fake.onResource("GET", P + "/licenses/", 502, P + "/licenses-slurmctld-down.json");
    Ping p = client.ping();
    assertFalse(p.controllerUp());
    assertTrue(fake.drained());
  }

  @Test
  void cancelIs500WithError1() {
    fake.onResource("DELETE", P + "/job/4242", 500, P + "/cancel-slurmctld-unreachable.json");
    fails(SlurmUnavailableException.class, () -> client.cancel(4242, null));
  }

  @Test
  void getJobIs500WithErrorMinusOne() {
    // −1 is SLURM_ERROR, no specific number: the 500 decides (SlurmErrors), never "not found".
    fake.onResource("GET", P + "/job/4242", 500, P + "/job-slurmctld-down.json");
    SlurmUnavailableException e = fails(SlurmUnavailableException.class, () -> client.getJob(4242));
    assertTrue(e.getMessage().contains("Unable to query JobId=4242"), e.getMessage());
  }
}
