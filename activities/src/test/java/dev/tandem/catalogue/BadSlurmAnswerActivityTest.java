package dev.tandem.catalogue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tandem.activities.SlurmActivitiesImpl;
import dev.tandem.slurm.testing.FakeSlurmTransport;
import dev.tandem.workflows.model.NodeJobs;
import io.temporal.failure.ApplicationFailure;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Bad-input catalogue (docs/reliability.md): what the Slurm activities make of odd slurmrestd
 * answers. Unknown is never taken for idle, drained or safe: the activity fails (retryably, so
 * Temporal tries again and the failure shows as the node's {@code problem} in {@code tandem
 * status}) or counts the node as busy, and no state change is sent to Slurm on a garbled read.
 */
class BadSlurmAnswerActivityTest {
  static final String B38 = CatalogueSlurm.B38;
  static final String B44 = CatalogueSlurm.B44;
  static final String UNAVAILABLE = "SlurmUnavailable";

  private final Clock clock = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);

  private final FakeSlurmTransport fake = new FakeSlurmTransport();

  private SlurmActivitiesImpl on38() {
    return new SlurmActivitiesImpl(CatalogueSlurm.v38(fake), clock);
  }

  private SlurmActivitiesImpl on44() {
    return new SlurmActivitiesImpl(CatalogueSlurm.v44(fake), clock);
  }

  /**
   * The node listing a drain wait's shared view reads before the jobs ({@code SlurmView}): no node
   * shows a drain, so each call also asks for a listing begun after it (two refreshes).
   */
  private void noNodes(String base, int times) {
    for (int i = 0; i < times; i++) {
      fake.on(
          "GET",
          base.equals(B38) ? B38 + "/nodes" : B44 + "/nodes/",
          200,
          base.equals(B38)
              ? "{\"nodes\":[]}"
              : "{\"nodes\":[],\"last_update\":{\"set\":true,\"infinite\":false,\"number\":1}}");
    }
  }

  /** The activity's retryable failure message. */
  private static String fails(Runnable call) {
    ApplicationFailure f = assertThrows(ApplicationFailure.class, call::run);
    assertEquals(UNAVAILABLE, f.getType(), f.toString());
    assertFalse(f.isNonRetryable(), "retried: the next answer may be readable");
    return f.getOriginalMessage();
  }

  /** Used to answer "no jobs" (a listing without its list read as an empty one). */
  @Test
  void jobsOnNodeFromAListingWithoutJobsIsUnknownNotNone() {
    noNodes(B38, 1);
    fake.on("GET", B38 + "/jobs", 200, "{\"meta\":{},\"errors\":[]}");
    assertEquals(
        "list jobs on node gpu-a-0: list jobs: slurmrestd answered without a \"jobs\" list:"
            + " {\"meta\":{},\"errors\":[]}",
        fails(() -> on38().jobsOnNode("gpu-a-0")));
  }

  /** Used to answer "no jobs" (the empty list beside the error was taken as the answer). */
  @Test
  void jobsOnNodeFromA200WithErrorsIsUnknownNotNone() {
    noNodes(B44, 1);
    fake.on(
        "GET",
        B44 + "/jobs/",
        200,
        "{\"jobs\":[],\"last_update\":{\"set\":true,\"infinite\":false,\"number\":1},"
            + "\"errors\":[{\"error_number\":1800,\"error\":\"Unable to contact slurm controller"
            + " (connect failure)\"}]}");
    assertEquals(
        "list jobs on node gpu-a-0: list jobs (HTTP 200): Slurm error 1800: Unable to contact"
            + " slurm controller (connect failure)",
        fails(() -> on44().jobsOnNode("gpu-a-0")));
  }

  /** Used to answer "no jobs": a state the client does not know was not "active". */
  @Test
  void jobInAStateThisClientDoesNotKnowKeepsTheNodeBusy() {
    noNodes(B44, 2);
    noNodes(B38, 2);
    for (int i = 0; i < 2; i++) {
      fake.on(
          "GET",
          B44 + "/jobs/",
          200,
          "{\"jobs\":[{\"job_id\":42,\"job_state\":[\"MIGRATING\"],\"nodes\":\"gpu-a-[0-1]\"}],"
              + "\"last_update\":5}");
      fake.on(
          "GET",
          B38 + "/jobs",
          200,
          "{\"jobs\":[{\"job_id\":43,\"job_state\":\"MIGRATING\",\"nodes\":\"gpu-a-0\"}]}");
    }
    assertEquals(new NodeJobs("gpu-a-0", List.of(42L)), on44().jobsOnNode("gpu-a-0"));
    assertEquals(new NodeJobs("gpu-a-0", List.of(43L)), on38().jobsOnNode("gpu-a-0"));
  }

  /** Used to answer "no jobs": a running job without nodes ran nowhere. */
  @Test
  void runningJobWithoutItsNodesMakesTheNodeUnknown() {
    noNodes(B38, 2);
    fake.on("GET", B38 + "/jobs", 200, "{\"jobs\":[{\"job_id\":42,\"job_state\":\"RUNNING\"}]}");
    fake.on("GET", B38 + "/jobs", 200, "{\"jobs\":[{\"job_id\":42,\"job_state\":\"RUNNING\"}]}");
    assertEquals(
        "Slurm listed job 42 (RUNNING) without its nodes; cannot tell what runs on gpu-a-0",
        fails(() -> on38().jobsOnNode("gpu-a-0")));
  }

  /** Used to read as "unknown to Slurm" (known=false), which a drain skips. */
  @Test
  void drainOnAGarbledNodeAnswerSendsNothing() {
    fake.on(
        "GET",
        B44 + "/node/gpu-a-0",
        200,
        "{\"nodes\":[{\"name\":\"gpu-a-1\",\"state\":[\"IDLE\"]}]}");
    assertEquals(
        "drain node gpu-a-0: get node gpu-a-0: slurmrestd answered other nodes (gpu-a-1, ...) but"
            + " not it",
        fails(() -> on44().drain("gpu-a-0", "tandem:manual: check")));
    assertEquals(1, fake.requests().size(), "only the read: " + fake.requests());
    fake.on("GET", B38 + "/node/gpu-a-0", 200, "{\"nodes\":[]}");
    assertEquals(
        "read node gpu-a-0: get node gpu-a-0: slurmrestd answered a node list without gpu-a-0:"
            + " {\"nodes\":[]}",
        fails(() -> on38().getNode("gpu-a-0")));
  }
}
