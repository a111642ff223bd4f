package dev.tandem.slurm.v0038;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.JobSubmission;
import dev.tandem.slurm.SlurmClient.Listing;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmNode;
import dev.tandem.slurm.SlurmNotFoundException;
import dev.tandem.slurm.SlurmRejectedException;
import dev.tandem.slurm.SlurmUnauthorizedException;
import dev.tandem.slurm.SlurmUnavailableException;
import dev.tandem.slurm.SlurmUnsupportedException;
import dev.tandem.slurm.TokenSource;
import dev.tandem.slurm.testing.FakeSlurmTransport;
import dev.tandem.slurm.testing.MutableClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The adapter's logic on canned 22.05 answers; the real thing is in the *V0038IT suites. */
class SlurmClientV0038Test {
  private static final String B = "/slurm/v0.0.38";
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:10.700Z");

  @TempDir Path tmp;

  /** A scontrol that answers from a queue and records its arguments. */
  static final class FakeScontrol extends Scontrol {
    final List<String> calls = new ArrayList<>();
    final Deque<Result> results = new ArrayDeque<>();

    FakeScontrol() {
      super(Path.of("/fake/scontrol"), null, TokenSource.fixed("t"), Duration.ofSeconds(1));
    }

    FakeScontrol then(int exit, String out) {
      results.add(new Result(exit, out));
      return this;
    }

    @Override
    Result run(String... args) {
      calls.add(String.join(" ", args));
      return results.isEmpty() ? new Result(0, "") : results.poll();
    }
  }

  private final FakeSlurmTransport rest = new FakeSlurmTransport();
  private final FakeScontrol scontrol = new FakeScontrol();

  private SlurmClientV0038 client(Path conf) {
    return new SlurmClientV0038(rest, scontrol, new FutureNodes(conf), new MutableClock(NOW));
  }

  private SlurmClientV0038 client() {
    return client(null);
  }

  private static String res(String name) {
    return FakeSlurmTransport.resource("/slurm/v0.0.38/" + name + ".json");
  }

  @Test
  void incrementalNodeListing() {
    rest.on("GET", B + "/nodes", 304, "");
    rest.on("GET", B + "/nodes", 500, res("error-unspecified"));
    rest.on("GET", B + "/nodes", 200, res("nodes"));
    Listing<SlurmNode> same = client().listNodes(Instant.ofEpochSecond(100));
    assertFalse(same.changed());
    assertTrue(same.items().isEmpty());
    // Next "since" is our second, backed off by the margin.
    assertEquals(Instant.parse("2026-01-01T00:00:07Z"), same.updateTime());
    // 22.05's bug: 500 "Unspecified error" when only nodes changed -> a full listing.
    Listing<SlurmNode> changed = client().listNodes(Instant.ofEpochSecond(200));
    assertTrue(changed.changed());
    assertEquals(4, changed.items().size());
    assertEquals(
        List.of(
            Map.of("update_time", List.of("100")), Map.of("update_time", List.of("200")), Map.of()),
        rest.requests().stream().map(r -> r.query()).toList());
    assertTrue(rest.drained());
  }

  @Test
  void incrementalNodeListingStillReportsARealTokenProblem() {
    rest.on("GET", B + "/nodes", 500, res("error-unspecified"));
    rest.on("GET", B + "/nodes", 500, res("error-unspecified"));
    scontrol.then(1, "slurm_load_ctl_conf error: Zero Bytes were transmitted or received");
    assertThrows(
        SlurmUnauthorizedException.class, () -> client().listNodes(Instant.ofEpochSecond(200)));
    assertEquals(List.of("show config"), scontrol.calls);
  }

  @Test
  void unspecifiedErrorWithAWorkingTokenMeansSlurmctldUnreachable() {
    rest.on("GET", B + "/job/5", 500, res("error-unspecified"));
    scontrol.then(
        1, "slurm_load_ctl_conf error: Unable to contact slurm controller (connect failure)");
    assertThrows(SlurmUnavailableException.class, () -> client().getJob(5));
    rest.on("GET", B + "/job/6", 500, res("error-unspecified"));
    scontrol.then(0, "Configuration data as of ...");
    assertThrows(SlurmUnavailableException.class, () -> client().getJob(6));
  }

  @Test
  void unspecifiedErrorWithoutScontrolFallsBackToTiming() {
    Scontrol none = new Scontrol(null, null, TokenSource.fixed("t"), Duration.ofSeconds(1));
    rest.on("GET", B + "/jobs", 500, res("error-unspecified"));
    SlurmClientV0038 c =
        new SlurmClientV0038(rest, none, new FutureNodes(null), new MutableClock(NOW));
    // A fast answer: the token.
    assertThrows(SlurmUnauthorizedException.class, () -> c.listJobs(null));
  }

  @Test
  void jobsListingAndLookups() {
    rest.on("GET", B + "/jobs", 304, "");
    rest.on("GET", B + "/job/3", 200, res("job-running"));
    rest.on("GET", B + "/job/4", 500, res("error-unknown-job"));
    assertFalse(client().listJobs(Instant.ofEpochSecond(50)).changed());
    assertThrows(SlurmNotFoundException.class, () -> client().getJob(3), "answer names another id");
    assertThrows(SlurmNotFoundException.class, () -> client().getJob(4));
    assertThrows(SlurmNotFoundException.class, () -> client().getJob(0));
  }

  @Test
  void getJobMatchesTheId() throws Exception {
    long id = V0038Json.JSON.readTree(res("job-running")).get("jobs").get(0).get("job_id").asLong();
    rest.on("GET", B + "/job/" + id, 200, res("job-running"));
    SlurmJob j = client().getJob(id);
    assertEquals("RUNNING", j.state());
  }

  @Test
  void submitReturnsTheIdEvenWithNotesAndNeverSendsArgv() throws Exception {
    // Answers in order: a held job (success with an error note), then a bad partition.
    rest.on("POST", B + "/job/submit", 200, res("submit-held"));
    rest.on("POST", B + "/job/submit", 500, res("error-bad-partition"));
    long id = client().submit(JobSubmission.builder("held").build());
    assertEquals(16, id);
    String body = rest.requests().get(0).jsonBody();
    assertFalse(body.contains("argv"));
    assertThrows(
        SlurmRejectedException.class, () -> client().submit(JobSubmission.builder("x").build()));
    assertThrows(
        SlurmUnsupportedException.class,
        () -> client().submit(JobSubmission.builder("x").userName("alice").build()));
  }

  @Test
  void cancelIsIdempotentForEndedJobs() {
    rest.on("DELETE", B + "/job/7", 200, "{\"errors\":[]}");
    rest.on(
        "DELETE",
        B + "/job/8",
        500,
        "{\"errors\":[{\"error\":\"Job/step already completing or completed\",\"error_number\":2021}]}");
    rest.on("DELETE", B + "/job/9", 500, res("error-unknown-job"));
    client().cancel(7, null);
    client().cancel(8, "SIGTERM");
    client().cancel(9, null); // purged (2017): gone is what cancel wants
    assertThrows(SlurmRejectedException.class, () -> client().cancel(0, null));
    assertThrows(SlurmRejectedException.class, () -> client().cancel(7, "KILL; rm"));
  }

  @Test
  void nodeStateChangesGoThroughScontrol() {
    SlurmClientV0038 c = client();
    c.drain("n1", "tandem:manual: disk");
    c.undrain("n1");
    c.down("n1", "tandem:remediation: gpu");
    c.resume("n1");
    assertEquals(
        List.of(
            "update NodeName=n1 State=DRAIN Reason=\"tandem:manual: disk\"",
            "update NodeName=n1 State=UNDRAIN",
            "update NodeName=n1 State=DOWN Reason=\"tandem:remediation: gpu\"",
            "update NodeName=n1 State=RESUME"),
        scontrol.calls);
    assertThrows(SlurmRejectedException.class, () -> c.drain("n1", " "));
    assertThrows(SlurmRejectedException.class, () -> c.drain("n1", "two\nlines"));
    assertThrows(SlurmRejectedException.class, () -> c.drain("n[1-2]", "r"));
    assertThrows(SlurmRejectedException.class, () -> c.getNode("../x"));
  }

  @Test
  void resumeOfAHealthyNodeIsNotAnError() throws Exception {
    scontrol.then(1, "slurm_update error: Invalid node state specified");
    rest.on("GET", B + "/node/n1", 200, nodeJson("n1", "idle", "[]"));
    client().resume("n1");
    scontrol.then(1, "slurm_update error: Invalid node state specified");
    rest.on("GET", B + "/node/n2", 200, nodeJson("n2", "down", "[\"DRAIN\"]"));
    assertThrows(SlurmRejectedException.class, () -> client().resume("n2"));
  }

  @Test
  void deleteNodeOnlyForFutureDeclaredNodes() throws Exception {
    Path conf = tmp.resolve("slurm.conf");
    Files.writeString(conf, "NodeName=n[1-2] State=UNKNOWN\nNodeName=spare-[0-3] State=FUTURE\n");
    rest.on("GET", B + "/node/spare-0", 200, nodeJson("spare-0", "idle", "[]"));
    rest.on("GET", B + "/node/spare-1", 500, res("error-unknown-node"));
    rest.on("GET", B + "/node/spare-2", 200, nodeJson("spare-2", "allocated", "[]"));
    rest.on("GET", B + "/node/n1", 200, nodeJson("n1", "idle", "[]"));
    rest.on("GET", B + "/node/nx", 500, res("error-unknown-node"));
    SlurmClientV0038 c = client(conf);
    c.deleteNode("spare-0");
    assertEquals(List.of("update NodeName=spare-0 State=FUTURE"), scontrol.calls);
    c.deleteNode("spare-1"); // already FUTURE (hidden): nothing to do
    assertThrows(SlurmRejectedException.class, () -> c.deleteNode("spare-2"));
    assertThrows(SlurmUnsupportedException.class, () -> c.deleteNode("n1"));
    c.deleteNode("nx"); // unknown: nothing to delete
    assertEquals(1, scontrol.calls.size());
    rest.on("GET", B + "/node/spare-0", 200, nodeJson("spare-0", "idle", "[]"));
    assertThrows(SlurmUnsupportedException.class, () -> client(null).deleteNode("spare-0"));
  }

  @Test
  void deleteNodeDeletesDynamicNodesWithScontrolDelete() throws Exception {
    Path conf = tmp.resolve("slurm.conf");
    Files.writeString(conf, "NodeName=n[1-2] State=UNKNOWN\nNodeName=spare-[0-3] State=FUTURE\n");
    rest.on("GET", B + "/node/dyn-0", 200, nodeJson("dyn-0", "idle", "[\"DYNAMIC_NORM\"]"));
    rest.on("GET", B + "/node/dyn-1", 200, nodeJson("dyn-1", "down", "[\"DYNAMIC_NORM\"]"));
    rest.on("GET", B + "/node/dyn-2", 200, nodeJson("dyn-2", "allocated", "[\"DYNAMIC_NORM\"]"));
    rest.on("GET", B + "/node/dyn-3", 200, nodeJson("dyn-3", "idle", "[\"DYNAMIC_NORM\"]"));
    rest.on("GET", B + "/node/n1", 200, nodeJson("n1", "idle", "[\"DYNAMIC_NORM\"]"));
    SlurmClientV0038 c = client(conf);
    c.deleteNode("dyn-0");
    c.deleteNode("dyn-1");
    assertEquals(List.of("delete NodeName=dyn-0", "delete NodeName=dyn-1"), scontrol.calls);
    // Jobs still hold it: refused before scontrol runs.
    assertThrows(SlurmRejectedException.class, () -> c.deleteNode("dyn-2"));
    assertEquals(2, scontrol.calls.size());
    // Deleted meanwhile (a retry): scontrol's "Invalid node name specified" is success.
    scontrol.then(
        1,
        "scontrol: error: failed to delete nodes dyn-3\n"
            + "delete_node nodename=dyn-3: Invalid node name specified");
    c.deleteNode("dyn-3");
    // Declared in slurm.conf: never scontrol delete (22.05 would remove a static node too).
    assertThrows(SlurmUnsupportedException.class, () -> c.deleteNode("n1"));
    assertEquals(3, scontrol.calls.size());
    // Without slurm.conf the flag alone says dynamic.
    rest.on("GET", B + "/node/dyn-4", 200, nodeJson("dyn-4", "idle", "[\"DYNAMIC_NORM\"]"));
    client(null).deleteNode("dyn-4");
    assertEquals("delete NodeName=dyn-4", scontrol.calls.get(3));
    scontrol.then(1, "slurm_delete error: Unable to contact slurm controller (connect failure)");
    rest.on("GET", B + "/node/dyn-5", 200, nodeJson("dyn-5", "idle", "[\"DYNAMIC_NORM\"]"));
    assertThrows(SlurmUnavailableException.class, () -> c.deleteNode("dyn-5"));
  }

  @Test
  void pingReportsAControllerThatIsDown() {
    rest.on("GET", B + "/ping", 200, res("ping"));
    rest.on("GET", B + "/ping", 200, res("ping"));
    assertTrue(client().ping().controllerUp());
    assertEquals("22.05.8", client().ping().slurmVersion());
    FakeSlurmTransport down = new FakeSlurmTransport();
    down.on("GET", B + "/ping", 500, res("error-unspecified"));
    FakeScontrol s =
        new FakeScontrol().then(1, "Unable to contact slurm controller (connect failure)");
    SlurmClientV0038 c =
        new SlurmClientV0038(down, s, new FutureNodes(null), new MutableClock(NOW));
    assertFalse(c.ping().controllerUp());
    FakeSlurmTransport dead = new FakeSlurmTransport().failing("GET", B + "/ping");
    SlurmClientV0038 d =
        new SlurmClientV0038(dead, s, new FutureNodes(null), new MutableClock(NOW));
    assertThrows(SlurmUnavailableException.class, d::ping);
  }

  /** Lines of a real 22.05.8 {@code scontrol show config}. */
  private static final String SHOW_CONFIG =
      "Configuration data as of 2026-11-24T00:44:43\n"
          + "JobSubmitPlugins        = (null)\n"
          + "KillOnBadExit           = 0\n"
          + "KillWait                = 5 sec\n"
          + "LaunchParameters        = (null)\n";

  @Test
  void killWaitComesFromScontrolShowConfig() {
    scontrol.then(0, SHOW_CONFIG);
    assertEquals(Optional.of(Duration.ofSeconds(5)), client().killWait());
    assertEquals(List.of("show config"), scontrol.calls);
    scontrol.then(0, "Configuration data as of 2026-11-24T00:44:43\nKillOnBadExit = 0\n");
    assertEquals(Optional.empty(), client().killWait(), "no KillWait line: unknown");
    scontrol.then(1, "Unable to contact slurm controller (connect failure)");
    assertThrows(SlurmUnavailableException.class, () -> client().killWait());
    Scontrol none = new Scontrol(null, null, TokenSource.fixed("t"), Duration.ofSeconds(1));
    SlurmClientV0038 c =
        new SlurmClientV0038(rest, none, new FutureNodes(null), new MutableClock(NOW));
    assertEquals(Optional.empty(), c.killWait(), "no scontrol: unknown, no failure");
  }

  private static String nodeJson(String name, String state, String flags) {
    return "{\"errors\":[],\"nodes\":[{\"name\":\""
        + name
        + "\",\"state\":\""
        + state
        + "\",\"state_flags\":"
        + flags
        + ",\"reason\":\"\",\"partitions\":[\"low\"]}]}";
  }

  @Test
  void createNodeIsUnsupportedOn2205AndSaysHowNodesAppearThere() {
    dev.tandem.slurm.SlurmUnsupportedException e =
        assertThrows(
            dev.tandem.slurm.SlurmUnsupportedException.class,
            () -> client().createNode("NodeName=n9 State=FUTURE CPUs=2"));
    assertTrue(e.getMessage().contains("slurmd -Z"), e.getMessage());
    assertTrue(e.getMessage().contains("scontrol create nodename"), e.getMessage());
    assertTrue(rest.requests().isEmpty());
    assertTrue(scontrol.calls.isEmpty());
  }

  @Test
  void submitPinnedToAnUnknownNodeIsRejectedNotNotFound() {
    rest.on("POST", B + "/job/submit", 500, res("error-submit-unknown-node"));
    SlurmRejectedException e =
        assertThrows(
            SlurmRejectedException.class,
            () -> client().submit(JobSubmission.builder("x").nodeList(List.of("nx-9")).build()));
    assertEquals(2018, e.errorNumber());
    assertTrue(e.slurmMessage().contains("Invalid node name specified"), e.slurmMessage());
  }
}
