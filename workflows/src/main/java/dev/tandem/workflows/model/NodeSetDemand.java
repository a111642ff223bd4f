package dev.tandem.workflows.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/**
 * What Slurm's queue asks of an autoscaled NodeSet (signal {@code demandObserved}, from the
 * watchers): its partitions' pending jobs that wait for resources and that a node of its shape can
 * run.
 *
 * @param nodes the nodes those jobs ask for, together
 * @param jobs how many jobs that is
 * @param busy the NodeSet's nodes that run a job, from the same listing: what the work holds now,
 *     consistent with {@code nodes} (node reports arrive on their own schedule, and a job that just
 *     started on new nodes would otherwise count both as pending and as running)
 * @param unfit pending jobs on its partitions that no node of the NodeSet could ever run (more
 *     nodes than {@code maxReplicas}, a GRES or feature its nodes lack): they add nothing
 * @param observedAt when the listing was read (the watchers' clock)
 * @param rejected why a payload is unusable (see {@link Payloads}), or null
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record NodeSetDemand(
    int nodes,
    int jobs,
    int busy,
    int unfit,
    Instant observedAt,
    @JsonInclude(JsonInclude.Include.NON_NULL) String rejected)
    implements Lenient {
  public NodeSetDemand(int nodes, int jobs, int busy, int unfit, Instant observedAt) {
    this(nodes, jobs, busy, unfit, observedAt, null);
  }

  /** Accepts any JSON; see {@link Payloads}. */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static NodeSetDemand fromJson(JsonNode n) {
    return Payloads.read(n, NodeSetDemand.class, why -> new NodeSetDemand(0, 0, 0, 0, null, why));
  }
}
