package dev.tandem.slurm.modern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.SlurmClient.Listing;
import dev.tandem.slurm.SlurmTransport.Response;
import dev.tandem.slurm.testing.Fixtures;
import dev.tandem.slurm.testing.JobListingVariants;
import dev.tandem.slurm.testing.JobListingVariants.Variant;
import dev.tandem.slurm.testing.Outcomes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link ModernJobs} (token stream) gives what the tree-based code ({@link ModernTreeJobs}) gave,
 * for every canned v0.0.41 and v0.0.44 answer and variants of it ({@link JobListingVariants}), full
 * and incremental, from bytes and from a String: the same listing or the same failure.
 */
class ModernJobsOracleTest {
  private static final String CTX = "list jobs";

  @Test
  void everyVariantOfEveryFixtureReadsAsTheTreeDid() {
    List<String> mismatches = new ArrayList<>();
    int checked = 0;
    int jobsRead = 0;
    int unchanged = 0;
    for (String version : List.of("v0.0.41", "v0.0.44")) {
      for (String name : Fixtures.names(version)) {
        String fixture = Fixtures.text(version, name);
        for (Variant v : JobListingVariants.of(fixture, name.hashCode())) {
          for (Instant since : Arrays.asList(null, Instant.ofEpochSecond(1763700000))) {
            Object expected =
                Outcomes.of(() -> ModernTreeJobs.listing(CTX, new Response(200, v.text()), since));
            for (Response r : List.of(Response.utf8(200, v.body()), new Response(200, v.text()))) {
              Object actual = Outcomes.of(() -> ModernJobs.listing(CTX, r, since));
              checked++;
              if (expected instanceof Listing<?> l) {
                jobsRead += l.items().size();
                unchanged += l.changed() ? 0 : 1;
              }
              if (!expected.equals(actual) && mismatches.size() < 20) {
                mismatches.add(
                    version
                        + "/"
                        + name
                        + " / "
                        + v
                        + " since "
                        + since
                        + ":\n  tree:   "
                        + expected
                        + "\n  stream: "
                        + actual);
              }
            }
          }
        }
      }
    }
    assertEquals("", String.join("\n", mismatches));
    assertTrue(checked > 10000 && jobsRead > 10000 && unchanged > 10, checked + " answers");
  }
}
