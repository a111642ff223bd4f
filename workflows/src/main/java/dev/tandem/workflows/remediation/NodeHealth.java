package dev.tandem.workflows.remediation;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/**
 * The re-check: what still looks wrong with a Kubernetes node and its Slurm nodes. Healthy means no
 * problem at all: the node exists and is Ready, none of the policy's conditions is True, and every
 * Slurm node is known to Slurm, registered and responding (not DOWN, not NOT_RESPONDING). Fail
 * closed: what cannot be read is a problem.
 *
 * @param problems one line each, e.g. {@code GpuUnhealthy=True: Xid 79}, {@code gpu-a-0: DOWN (Not
 *     responding)}; empty when healthy
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record NodeHealth(List<String> problems, boolean nodeGone) {
  public NodeHealth {
    problems = problems == null ? List.of() : List.copyOf(problems);
  }

  public NodeHealth(List<String> problems) {
    this(problems, false);
  }

  /** A node whose machine was replaced is gone: healthy if its gone-ness is the only problem. */
  public boolean healthyAfterReplace() {
    return healthy() || (nodeGone && problems.size() == 1);
  }

  public boolean healthy() {
    return problems.isEmpty();
  }

  /** The problems on one line, for timelines and reasons. */
  public String summary() {
    return problems.isEmpty() ? "healthy" : String.join("; ", problems);
  }
}
