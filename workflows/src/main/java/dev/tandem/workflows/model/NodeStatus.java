package dev.tandem.workflows.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;
import java.util.Map;

/**
 * The answer to a node workflow's {@code status} query.
 *
 * @param ref the node
 * @param phase lifecycle phase
 * @param revision revision of the running pod
 * @param targetRevision revision it is moving to
 * @param operation pending operation: {@code none}, {@code update}, {@code delete}
 * @param holds drains Tandem holds on the node: owner to Slurm reason
 * @param pod last view of the pod
 * @param slurm last view of the Slurm node
 * @param busy jobs run on the node (null: unknown)
 * @param problem every problem the node holds (the current one, a refused pod revision), or null
 * @param timeline transitions, oldest first (bounded)
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record NodeStatus(
    NodeRef ref,
    NodePhase phase,
    String revision,
    String targetRevision,
    String operation,
    Map<String, String> holds,
    PodView pod,
    SlurmNodeView slurm,
    Boolean busy,
    String problem,
    List<TimelineEntry> timeline) {}
