package dev.tandem.workflows.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * What a node workflow tells its NodeSet workflow (signal {@code nodeReported}) whenever something
 * the NodeSet decides on changes.
 *
 * @param pod pod name
 * @param ordinal ordinal
 * @param phase lifecycle phase
 * @param revision revision the pod runs
 * @param targetRevision revision the node is moving to (same as revision when settled)
 * @param slurmState short Slurm state ({@code idle}, {@code allocated+DRAIN}, ...)
 * @param busy jobs run on it; null if unknown (counts as busy)
 * @param reason Slurm reason, or null
 * @param k8sNode the Kubernetes node hosting the pod, or null
 * @param problem the problems worth surfacing on the NodeSet (stuck, rejected by Slurm, a pod
 *     revision the cluster refused), in one line, or null
 * @param seq increasing per node workflow, so a late report never overwrites a newer one
 * @param rejected why a {@code nodeReported} payload is unusable (see {@link Payloads}), or null
 * @param podRejectedRevision a revision whose pod the cluster refused as invalid (the node does not
 *     create it again), or null
 * @param podRejected why, in one line (the field and the cluster's reason), or null
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record NodeReport(
    String pod,
    int ordinal,
    NodePhase phase,
    String revision,
    String targetRevision,
    String slurmState,
    Boolean busy,
    String reason,
    String k8sNode,
    String problem,
    long seq,
    @JsonInclude(JsonInclude.Include.NON_NULL) String rejected,
    @JsonInclude(JsonInclude.Include.NON_NULL) String podRejectedRevision,
    @JsonInclude(JsonInclude.Include.NON_NULL) String podRejected)
    implements Lenient {

  public NodeReport(
      String pod,
      int ordinal,
      NodePhase phase,
      String revision,
      String targetRevision,
      String slurmState,
      Boolean busy,
      String reason,
      String k8sNode,
      String problem,
      long seq) {
    this(
        pod,
        ordinal,
        phase,
        revision,
        targetRevision,
        slurmState,
        busy,
        reason,
        k8sNode,
        problem,
        seq,
        null,
        null,
        null);
  }

  /** A report that also says which revision the cluster refused and why (both may be null). */
  public NodeReport withPodRejected(String revision, String why) {
    return new NodeReport(
        pod,
        ordinal,
        phase,
        this.revision,
        targetRevision,
        slurmState,
        busy,
        reason,
        k8sNode,
        problem,
        seq,
        rejected,
        revision,
        why);
  }

  /** Accepts any JSON; see {@link Payloads}. */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static NodeReport fromJson(JsonNode n) {
    return Payloads.read(
        n,
        NodeReport.class,
        why ->
            new NodeReport(
                null, 0, null, null, null, null, null, null, null, null, 0, why, null, null));
  }
}
