package dev.tandem.workflows.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/**
 * Jobs that hold resources on a node (running, completing, suspended...), derived from Slurm's job
 * list rather than node counters (which lag on 22.05).
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record NodeJobs(String node, List<Long> jobIds) {
  public NodeJobs {
    jobIds = jobIds == null ? List.of() : List.copyOf(jobIds);
  }

  public boolean busy() {
    return !jobIds.isEmpty();
  }
}
