package dev.tandem.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.SlurmClient.Listing;
import dev.tandem.slurm.spec.OpenApiSpec;
import dev.tandem.slurm.spec.SpecOperations;
import dev.tandem.slurm.testing.FakeSlurmTransport;
import dev.tandem.slurm.v0038.SlurmClientV0038;
import dev.tandem.slurm.v0041.SlurmClientV0041;
import dev.tandem.slurm.v0044.SlurmClientV0044;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Placeholder listings on every adapter: one request each, only tagged jobs, phases as the states
 * say. The v0.0.38 answer was captured from the real 22.05 (a placeholder preempted with
 * no_requeue, one running, one cancelled, one untagged high job); the v0.0.41/v0.0.44 answers are
 * checked against the official specs (FixturesMatchSpecTest).
 */
class PlaceholderListingTest {
  private static final SlurmClientConfig CONFIG =
      new SlurmClientConfig(
          URI.create("http://127.0.0.1:6820"),
          null,
          "root",
          TokenSource.fixed("t"),
          null,
          null,
          null,
          null,
          null);

  private static final String U38 = "0b5e6f3a-1111-4c2d-9e8f-00000000000";

  private final FakeSlurmTransport fake = new FakeSlurmTransport();

  private SlurmClient client(String v) {
    return switch (v) {
      case "v0.0.38" -> new SlurmClientV0038(fake, CONFIG);
      case "v0.0.41" ->
          new SlurmClientV0041(fake.checkedAgainst(new SpecOperations(OpenApiSpec.load(v))));
      default -> new SlurmClientV0044(fake.checkedAgainst(new SpecOperations(OpenApiSpec.load(v))));
    };
  }

  private static String jobsPath(String v) {
    return "/slurm/" + v + (v.equals("v0.0.38") ? "/jobs" : "/jobs/");
  }

  private static Map<Long, String> summary(List<PlaceholderJob> jobs) {
    return jobs.stream()
        .collect(
            Collectors.toMap(
                PlaceholderJob::jobId,
                p -> p.podUid() + " " + p.phase() + " " + p.nodes() + " r" + p.restartCount(),
                (a, b) -> a,
                TreeMap::new));
  }

  private static Map<Long, String> expected(String v) {
    if (v.equals("v0.0.38")) {
      return new TreeMap<>(
          Map.of(
              1L, "probe1 ENDED [n1] r0",
              3L, U38 + "1 PREEMPTED [n3] r0",
              5L, U38 + "2 RUNNING [n4] r0"));
    }
    return new TreeMap<>(
        Map.of(
            101L, "uid-a WAITING [] r0",
            102L, "uid-b RUNNING [gpu-a-3, gpu-a-4] r0",
            103L, "uid-c ENDING [gpu-a-0] r0",
            104L, "uid-d PREEMPTED [gpu-a-1] r0",
            105L, "uid-e REQUEUED [] r1",
            108L, "uid-b ENDED [gpu-a-3] r0"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"v0.0.38", "v0.0.41", "v0.0.44"})
  void aFullListingHasEveryTaggedJobAndNothingElse(String v) {
    fake.onResource("GET", jobsPath(v), 200, "/slurm/" + v + "/jobs-placeholders.json");
    Listing<PlaceholderJob> l = client(v).listPlaceholderJobs(null);
    assertTrue(l.changed());
    assertEquals(expected(v), summary(l.items()));
    assertEquals(1, fake.requests().size(), "one listing");
  }

  @ParameterizedTest
  @ValueSource(strings = {"v0.0.38", "v0.0.41", "v0.0.44"})
  void anUnchangedListingSaysSoAndCarriesNoJobs(String v) {
    if (v.equals("v0.0.38")) {
      fake.on("GET", jobsPath(v), 304, "");
    } else {
      fake.onResource("GET", jobsPath(v), 200, "/slurm/" + v + "/jobs-unchanged.json");
    }
    Instant since = Instant.ofEpochSecond(1_763_700_000L);
    Listing<PlaceholderJob> l = client(v).listPlaceholderJobs(since);
    assertFalse(l.changed());
    assertTrue(l.items().isEmpty());
    assertTrue(fake.requests().get(0).query().containsKey("update_time"));
    assertEquals(1, fake.requests().size());
  }

  @ParameterizedTest
  @ValueSource(strings = {"v0.0.38", "v0.0.41", "v0.0.44"})
  void findByTagReturnsEveryJobOfThatUidFromOneListing(String v) {
    fake.onResource("GET", jobsPath(v), 200, "/slurm/" + v + "/jobs-placeholders.json");
    String uid = v.equals("v0.0.38") ? U38 + "1" : "uid-b";
    List<PlaceholderJob> found = client(v).findJobsByTag(uid);
    List<Long> ids = found.stream().map(PlaceholderJob::jobId).sorted().toList();
    assertEquals(v.equals("v0.0.38") ? List.of(3L) : List.of(102L, 108L), ids);
    assertFalse(fake.requests().get(0).query().containsKey("update_time"), "a full listing");
    assertEquals(1, fake.requests().size());
  }

  @ParameterizedTest
  @ValueSource(strings = {"v0.0.38", "v0.0.41", "v0.0.44"})
  void aJobWhoseCommentAloneCarriesTheTagIsNotFound(String v) {
    fake.onResource("GET", jobsPath(v), 200, "/slurm/" + v + "/jobs-placeholders.json");
    // v0.0.41/44: job 107's comment names uid-f, its name other-f. v0.0.38: no such uid at all.
    assertEquals(List.of(), client(v).findJobsByTag(v.equals("v0.0.38") ? "probe2" : "uid-f"));
  }
}
