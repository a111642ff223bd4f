package dev.tandem.slurm.v0044;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.JobSubmission;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmRejectedException;
import dev.tandem.slurm.SlurmUnauthorizedException;
import dev.tandem.slurm.SlurmUnavailableException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The answers of a real Slurm 25.11.7 that the first v0.0.44 adapter misread (issue 13): cancel
 * while slurmctld is unreachable, ping with a refused token, submit pinned to an unknown node.
 */
class SlurmClientV0044ParityTest extends V0044AnswersTestBase {

  @Test
  void cancelWhileSlurmctldIsUnreachableIsRetryable() {
    // 25.11's slurm_kill_jobs() turns "no answer from slurmctld" into errno 1 (EPERM).
    fake.onResource("DELETE", P + "/job/4242", 500, P + "/cancel-slurmctld-unreachable.json");
    SlurmUnavailableException e =
        fails(SlurmUnavailableException.class, () -> client.cancel(4242, null));
    assertTrue(e.retryable(), "a cancel retried later is safe; a dropped one leaks a job");
    assertTrue(e.getMessage().contains("Operation not permitted"), e.getMessage());
    fake.onResource("DELETE", P + "/job/4242", 500, P + "/cancel-slurmctld-unreachable.json");
    fails(SlurmUnavailableException.class, () -> client.cancel(4242, "SIGTERM"));
  }

  @Test
  void aGenuinePermissionRefusalOfACancelStaysRejected() {
    // slurmctld's own refusal is ESLURM_ACCESS_DENIED (2002) in the status list, not errno 1.
    fake.onResource("DELETE", P + "/job/4244", 200, P + "/cancel-access-denied.json");
    SlurmRejectedException e = fails(SlurmRejectedException.class, () -> client.cancel(4244, null));
    assertEquals(2002, e.errorNumber());
    assertFalse(e.retryable());
  }

  @Test
  void pingWithARefusedTokenIsUnauthorizedNotDown() {
    // /ping/ answers 200 whatever the token; the probe tells a refused token from an outage.
    fake.onResource("GET", P + "/ping/", 200, P + "/ping-no-pong.json");
    fake.onResource("GET", P + "/licenses/", 511, P + "/licenses-bad-token.json");
    SlurmUnauthorizedException e = fails(SlurmUnauthorizedException.class, client::ping);
    assertTrue(e.getMessage().contains("1007"), e.getMessage());
    assertEquals(2, fake.requests().size());
  }

  @Test
  void pingWithSlurmctldStoppedIsStillDown() {
    fake.onResource("GET", P + "/ping/", 200, P + "/ping-no-pong.json");
    fake.onResource("GET", P + "/licenses/", 502, P + "/licenses-slurmctld-down.json");
    SlurmClient.Ping p = client.ping();
    assertFalse(p.controllerUp());
    assertEquals("25.11.7", p.slurmVersion());
    assertEquals("prod", p.cluster());

    fake.onResource("GET", P + "/ping/", 200, P + "/ping-no-pong.json");
    fake.failing("GET", P + "/licenses/"); // slurmrestd went away in between
    assertFalse(client.ping().controllerUp());
  }

  @Test
  void pingThatMissedAPongButSlurmctldAnswersIsUp() {
    fake.onResource("GET", P + "/ping/", 200, P + "/ping-no-pong.json");
    fake.onResource("GET", P + "/licenses/", 200, P + "/licenses.json");
    assertTrue(client.ping().controllerUp());
  }

  @Test
  void aRespondingPingNeedsNoProbe() {
    fake.onResource("GET", P + "/ping/", 200, P + "/ping.json");
    assertTrue(client.ping().controllerUp());
    assertEquals(1, fake.requests().size());
  }

  @Test
  void submitPinnedToAnUnknownNodeIsRejectedWithSlurmsMessage() {
    fake.onResource("POST", P + "/job/submit", 500, P + "/submit-unknown-node.json");
    SlurmRejectedException e =
        fails(
            SlurmRejectedException.class,
            () -> client.submit(JobSubmission.builder("x").nodeList(List.of("gpu-z-9")).build()));
    assertEquals(2018, e.errorNumber());
    assertTrue(e.slurmMessage().contains("Invalid node name specified"), e.slurmMessage());
    assertTrue(e.getMessage().contains("HTTP 500"), e.getMessage());
    assertFalse(e.retryable());
  }

  @Test
  void anUnknownNodeIsStillNotFoundWhereANodeIsLookedUp() {
    // Only submit changes: a drain of an unknown node is still "not found".
    fake.onResource("POST", P + "/node/gpu-z-9", 500, P + "/node-update-unknown.json");
    fails(
        dev.tandem.slurm.SlurmNotFoundException.class,
        () -> client.drain("gpu-z-9", "tandem:manual: test"));
  }
}
