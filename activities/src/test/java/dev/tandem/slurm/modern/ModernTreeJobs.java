package dev.tandem.slurm.modern;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.slurm.SlurmClient.Listing;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmTransport.Response;
import java.time.Instant;

/**
 * The oracle: how {@code ModernSlurmClient.listJobs} read an answer before {@link ModernJobs}, as
 * one Jackson tree (the code as it was). Kept only to hold the streaming reader equal to it
 * (ModernJobsOracleTest) and to measure both (JobListingParseBench).
 */
public final class ModernTreeJobs {
  private ModernTreeJobs() {}

  /** The listing in answer {@code r} (not a 304) to a listing since {@code since}. */
  public static Listing<SlurmJob> listing(String ctx, Response r, Instant since) {
    JsonNode body = Responses.requireOk(ctx, r);
    JsonNode jobs = body.path("jobs");
    Instant lastUpdate = Json.instant(body.get("last_update"));
    if (since != null && jobs.isEmpty() && (lastUpdate == null || Responses.noJobChanges(body))) {
      // 24.05/25.11 answer "unchanged" with 200, "jobs": [], no last_update and the warning
      // "No job changes since update_time[...]". A real listing always carries last_update.
      return Listing.unchanged(since);
    }
    return new Listing<>(
        true,
        Responses.parseAll(ctx, Responses.list(ctx, body, "jobs"), ModernParsers::job),
        lastUpdate);
  }

  /** The streaming reader the adapter uses, for tests and benchmarks outside the package. */
  public static Listing<SlurmJob> streamed(String ctx, Response r, Instant since) {
    return ModernJobs.listing(ctx, r, since);
  }
}
