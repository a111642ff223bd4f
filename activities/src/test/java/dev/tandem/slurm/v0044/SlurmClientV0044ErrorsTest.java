package dev.tandem.slurm.v0044;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.JobSubmission;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmNotFoundException;
import dev.tandem.slurm.SlurmRejectedException;
import dev.tandem.slurm.SlurmUnauthorizedException;
import dev.tandem.slurm.SlurmUnavailableException;
import dev.tandem.slurm.SlurmUnsupportedException;
import dev.tandem.slurm.testing.FakeSlurmTransport;
import java.util.List;
import org.junit.jupiter.api.Test;

/** HTTP status and Slurm error numbers of 25.11 mapped to the typed exceptions. */
class SlurmClientV0044ErrorsTest extends V0044AnswersTestBase {

  @Test
  void badTokenIs511AndUnauthorized() {
    fake.onResource("GET", P + "/nodes/", 511, P + "/auth-511.json");
    SlurmUnauthorizedException e =
        fails(SlurmUnauthorizedException.class, () -> client.listNodes(null));
    assertTrue(e.retryable(), "a refreshed token may fix it");
    assertTrue(e.getMessage().contains("1007"), e.getMessage());
  }

  @Test
  void missingTokenIs401WithATextBody() {
    fake.on("GET", P + "/jobs/", 401, "Authentication failure");
    SlurmUnauthorizedException e =
        fails(SlurmUnauthorizedException.class, () -> client.listJobs(null));
    assertTrue(e.getMessage().contains("HTTP 401"), e.getMessage());
  }

  @Test
  void slurmctldUnreachableIsUnavailable() {
    fake.onResource("GET", P + "/nodes/", 500, P + "/slurmctld-down.json");
    SlurmUnavailableException e =
        fails(SlurmUnavailableException.class, () -> client.listNodes(null));
    assertTrue(e.getMessage().contains("1800"), e.getMessage());
    fake.on("GET", P + "/node/gpu-a-1", 502, "");
    fails(SlurmUnavailableException.class, () -> client.getNode("gpu-a-1"));
    fake.on("GET", P + "/jobs/", 503, "<html>Service Unavailable</html>");
    fails(SlurmUnavailableException.class, () -> client.listJobs(null));
  }

  @Test
  void transportFailurePropagatesAsUnavailable() {
    fake.failing("GET", P + "/job/7");
    fails(SlurmUnavailableException.class, () -> client.getJob(7));
  }

  @Test
  void nonJsonSuccessIsUnavailableNotAnEmptyList() {
    fake.on("GET", P + "/nodes/", 200, "<html>proxy login</html>");
    SlurmUnavailableException e =
        fails(SlurmUnavailableException.class, () -> client.listNodes(null));
    assertTrue(e.getMessage().contains("not a JSON object"), e.getMessage());
  }

  @Test
  void emptyOrListlessReadsAreUnavailableNotEmpty() {
    fake.on("GET", P + "/nodes/", 200, "");
    fails(SlurmUnavailableException.class, () -> client.listNodes(null));
    fake.on("GET", P + "/nodes/", 200, "{\"errors\":[],\"warnings\":[]}");
    SlurmUnavailableException e =
        fails(SlurmUnavailableException.class, () -> client.listNodes(null));
    assertTrue(e.getMessage().contains("without a \"nodes\" list"), e.getMessage());
    fake.on("GET", P + "/jobs/", 200, "{\"jobs\":{}}");
    fails(SlurmUnavailableException.class, () -> client.listJobs(null));
  }

  @Test
  void emptySuccessfulChangesAreFine() {
    fake.on("POST", P + "/node/gpu-a-1", 200, "");
    fake.on("DELETE", P + "/job/4242", 204, "");
    client.undrain("gpu-a-1");
    client.cancel(4242, null);
  }

  @Test
  void unreadableEntryFailsTheWholeListing() {
    fake.on("GET", P + "/jobs/", 200, "{\"jobs\":[{\"job_id\":5,\"nodes\":\"n[3-1]\"}]}");
    fails(SlurmUnavailableException.class, () -> client.listJobs(null));
  }

  @Test
  void unknownNodeIs200WithoutNodesAndNotFound() {
    fake.onResource("GET", P + "/node/gpu-z-9", 200, P + "/node-unknown.json");
    SlurmNotFoundException e = fails(SlurmNotFoundException.class, () -> client.getNode("gpu-z-9"));
    assertTrue(e.getMessage().contains("Failure to query node gpu-z-9"), e.getMessage());
  }

  @Test
  void unknownJobIs404With2017AndNotFound() {
    fake.onResource("GET", P + "/job/999999", 404, P + "/job-unknown.json");
    fails(SlurmNotFoundException.class, () -> client.getJob(999999));
  }

  @Test
  void a404WithoutASlurmErrorIsAnUnservedPathNotAMissingNode() {
    fake.on("GET", P + "/node/gpu-a-1", 404, "Not Found");
    SlurmUnsupportedException e =
        fails(SlurmUnsupportedException.class, () -> client.getNode("gpu-a-1"));
    assertFalse(e.retryable());
  }

  @Test
  void rejectedSubmitCarriesSlurmsNumberAndText() {
    fake.onResource("POST", P + "/job/submit", 500, P + "/submit-bad-partition.json");
    SlurmRejectedException e =
        fails(
            SlurmRejectedException.class,
            () -> client.submit(JobSubmission.builder("x").partition("nope").build()));
    assertEquals(2000, e.errorNumber());
    assertTrue(e.slurmMessage().contains("Invalid partition name specified"), e.slurmMessage());
    assertFalse(e.retryable());
  }

  @Test
  void laterSlurmSends422ForTheSameRefusal() {
    String body = FakeSlurmTransport.resource(P + "/submit-bad-partition.json");
    fake.on("POST", P + "/job/submit", 422, body);
    SlurmRejectedException e =
        fails(
            SlurmRejectedException.class, () -> client.submit(JobSubmission.builder("x").build()));
    assertEquals(2000, e.errorNumber());
  }

  @Test
  void submitWithoutJobIdIsAnError() {
    fake.on("POST", P + "/job/submit", 200, "{\"errors\":[],\"warnings\":[]}");
    fails(SlurmUnavailableException.class, () -> client.submit(JobSubmission.builder("x").build()));
  }

  @Test
  void nodeUpdateOfUnknownNodeIsNotFound() {
    fake.onResource("POST", P + "/node/gpu-z-9", 500, P + "/node-update-unknown.json");
    fails(SlurmNotFoundException.class, () -> client.drain("gpu-z-9", "tandem:manual: test"));
  }

  @Test
  void errorsInA200NodeUpdateStillFail() {
    String body =
        "{\"errors\":[{\"error_number\":2028,\"error\":\"Invalid node state specified\","
            + "\"description\":\"Failure to update node gpu-a-1\"}],\"warnings\":[]}";
    fake.on("POST", P + "/node/gpu-a-1", 200, body);
    SlurmRejectedException e = fails(SlurmRejectedException.class, () -> client.resume("gpu-a-1"));
    assertEquals(2028, e.errorNumber());
  }

  @Test
  void resumingANodeAlreadyInServiceIsDone() {
    fake.onResource("POST", P + "/node/gpu-a-0", 500, P + "/node-resume-in-service.json");
    fake.onResource("GET", P + "/node/gpu-a-0", 200, P + "/nodes.json");
    client.resume("gpu-a-0");
    assertEquals(2, fake.requests().size(), "looked before calling it done");
  }

  @Test
  void resumeRefusedForADrainedNodeIsStillAnError() {
    // 2180 also means "registered with an invalid configuration": the node stays drained.
    fake.onResource("POST", P + "/node/gpu-a-1", 500, P + "/node-resume-in-service.json");
    fake.onResource("GET", P + "/node/gpu-a-1", 200, P + "/node-drained.json");
    SlurmRejectedException e = fails(SlurmRejectedException.class, () -> client.resume("gpu-a-1"));
    assertEquals(2180, e.errorNumber());
  }

  @Test
  void deletingASlurmConfNodeIsUnsupported() {
    fake.onResource("DELETE", P + "/node/gpu-a-1", 500, P + "/node-delete-static.json");
    SlurmUnsupportedException e =
        fails(SlurmUnsupportedException.class, () -> client.deleteNode("gpu-a-1"));
    assertTrue(e.getMessage().contains("slurm.conf"), e.getMessage());
  }

  @Test
  void deletingABusyNodeIsRejected() {
    fake.onResource("DELETE", P + "/node/gpu-a-4", 500, P + "/node-delete-busy.json");
    SlurmRejectedException e =
        fails(SlurmRejectedException.class, () -> client.deleteNode("gpu-a-4"));
    assertEquals(2016, e.errorNumber());
  }

  @Test
  void deletingANodeThatIsGoneSucceeds() {
    fake.onResource("DELETE", P + "/node/gpu-z-9", 500, P + "/node-update-unknown.json");
    client.deleteNode("gpu-z-9");
    assertEquals(1, fake.requests().size());
  }

  @Test
  void cancelAnswers200WithAStatusList() {
    fake.onResource("DELETE", P + "/job/4242", 200, P + "/cancel-ok.json");
    fake.onResource("DELETE", P + "/job/4242", 200, P + "/cancel-already-done.json");
    fake.onResource("DELETE", P + "/job/999999", 200, P + "/cancel-invalid-id.json");
    client.cancel(4242, null);
    client.cancel(4242, null); // already ended: not an error
    client.cancel(999999, null); // purged after MinJobAge: nothing left to cancel
    assertNull(fake.requests().get(0).jsonBody());
    assertTrue(fake.requests().get(0).query().isEmpty(), "no signal means SIGKILL (scancel)");
  }

  @Test
  void cancelFailuresInsideTheStatusListAreTyped() {
    fake.onResource("DELETE", P + "/job/4243", 200, P + "/cancel-cannot-alter.json");
    SlurmUnavailableException later =
        fails(SlurmUnavailableException.class, () -> client.cancel(4243, "SIGUSR1"));
    assertTrue(later.getMessage().contains("try again later"), later.getMessage());
    fake.onResource("DELETE", P + "/job/4244", 200, P + "/cancel-access-denied.json");
    SlurmRejectedException denied =
        fails(SlurmRejectedException.class, () -> client.cancel(4244, null));
    assertEquals(2002, denied.errorNumber());
  }

  @Test
  void cancelOfUnknownJobAnsweredWith404IsStillDone() {
    fake.onResource("DELETE", P + "/job/999999", 404, P + "/job-unknown.json");
    client.cancel(999999, null);
  }

  @Test
  void pingWithSlurmctldDownIsAnAnswerNotAnError() {
    fake.onResource("GET", P + "/ping/", 500, P + "/slurmctld-down.json");
    SlurmClient.Ping p = client.ping();
    assertFalse(p.controllerUp());
    assertEquals("25.11.7", p.slurmVersion());
    fake.onResource("GET", P + "/ping/", 511, P + "/auth-511.json");
    fails(SlurmUnauthorizedException.class, client::ping);
  }

  @Test
  void badInputIsRefusedBeforeAnythingIsSent() {
    assertThrows(IllegalArgumentException.class, () -> client.drain("gpu-a-[0-9]", "r"));
    assertThrows(IllegalArgumentException.class, () -> client.getNode("a,b"));
    assertThrows(IllegalArgumentException.class, () -> client.deleteNode("../nodes"));
    assertThrows(IllegalArgumentException.class, () -> client.drain("gpu-a-1", " "));
    assertThrows(NullPointerException.class, () -> client.down("gpu-a-1", null));
    assertThrows(IllegalArgumentException.class, () -> client.cancel(1, "TERM; rm"));
    JobSubmission.Builder b = JobSubmission.builder("x");
    assertThrows(
        IllegalArgumentException.class,
        () -> client.submit(b.nodeCount(1).nodeList(List.of("a", "b")).build()));
    assertThrows(
        IllegalArgumentException.class,
        () -> client.submit(JobSubmission.builder("x").timeLimitMinutes(0L).build()));
    assertThrows(
        IllegalArgumentException.class,
        () -> client.submit(JobSubmission.builder("x").script("sleep 1").build()));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            client.submit(
                JobSubmission.builder("x")
                    .nodeList(List.of("a"))
                    .excludeNodes(List.of("a"))
                    .build()));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            client.submit(
                JobSubmission.builder("x").environment(java.util.Map.of("A B", "1")).build()));
    assertEquals(List.of(), fake.requests());
  }
}
