package dev.tandem.slurm.v0038;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.SlurmTransport.Response;
import dev.tandem.slurm.testing.Fixtures;
import dev.tandem.slurm.testing.JobListingVariants;
import dev.tandem.slurm.testing.JobListingVariants.Variant;
import dev.tandem.slurm.testing.Outcomes;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link V0038Jobs} (token stream) gives what the tree-based code ({@link V0038TreeJobs}) gave, for
 * every canned 22.05 answer and variants of it ({@link JobListingVariants}), from bytes (what
 * HttpSlurmTransport hands over) and from a String (other transports): the same jobs, the same
 * "Slurm reported errors" verdict, or the same failure.
 */
class V0038JobsOracleTest {
  private static final String CTX = "list jobs";

  @Test
  void everyVariantOfEveryFixtureReadsAsTheTreeDid() {
    List<String> mismatches = new ArrayList<>();
    int checked = 0;
    int jobsRead = 0;
    List<String> names = Fixtures.names("v0.0.38");
    for (String name : names) {
      String fixture = Fixtures.text("v0.0.38", name);
      List<Variant> variants = new ArrayList<>(JobListingVariants.of(fixture, name.hashCode()));
      if (name.equals("jobs-placeholders.json")) {
        variants.add(
            new Variant(
                "800 jobs", Fixtures.replicate(fixture, 800).getBytes(StandardCharsets.UTF_8)));
      }
      for (Variant v : variants) {
        Object expected = Outcomes.of(() -> V0038TreeJobs.read(v.text(), CTX));
        for (Response r : List.of(Response.utf8(200, v.body()), new Response(200, v.text()))) {
          Object actual = Outcomes.of(() -> streamed(r));
          checked++;
          if (expected instanceof List<?> l) {
            jobsRead += l.size();
          }
          if (!expected.equals(actual) && mismatches.size() < 20) {
            mismatches.add(name + " / " + v + ":\n  tree:   " + expected + "\n  stream: " + actual);
          }
        }
      }
    }
    assertEquals("", String.join("\n", mismatches));
    assertTrue(names.contains("jobs-placeholders.json"), "the 22.05 capture is among " + names);
    assertTrue(checked > 5000 && jobsRead > 5000, checked + " answers, " + jobsRead + " jobs");
  }

  private static Object streamed(Response r) {
    V0038Jobs.Answer a = V0038Jobs.read(r, CTX);
    return a.slurmErrors() ? V0038TreeJobs.SLURM_ERRORS : a.jobs();
  }
}
