package dev.tandem.workflows.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.tandem.workflows.Names;

/**
 * One Tandem-managed Slurm node: a pod of a NodeSet. The Slurm node name is the pod name.
 *
 * @param namespace Kubernetes namespace of the NodeSet and its pods
 * @param nodeSet NodeSet name
 * @param pod pod name ({@code <nodeSet>-<ordinal>}), also the Slurm node name
 * @param ordinal the pod's ordinal in the NodeSet
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record NodeRef(String namespace, String nodeSet, String pod, int ordinal) {

  public static NodeRef of(String namespace, String nodeSet, int ordinal) {
    return new NodeRef(namespace, nodeSet, Names.podName(nodeSet, ordinal), ordinal);
  }

  public String workflowId() {
    return Names.nodeWorkflowId(namespace, pod);
  }

  public String nodeSetWorkflowId() {
    return Names.nodeSetWorkflowId(namespace, nodeSet);
  }

  /** The Slurm node name. */
  public String slurmName() {
    return pod;
  }
}
