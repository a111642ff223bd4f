package dev.tandem.k8s.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.model.annotation.LabelSelector;
import io.fabric8.kubernetes.model.annotation.StatusReplicas;
import java.util.List;

/** {@code status} of a {@link NodeSet}, written by the NodeSet workflow through /status. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NodeSetStatus {

  @StatusReplicas
  @JsonPropertyDescription("Nodes that exist (any phase but deleted).")
  private Integer replicas;

  @JsonPropertyDescription("Nodes registered with Slurm and in service.")
  private Integer readyReplicas;

  @JsonPropertyDescription("Nodes running the update revision.")
  private Integer updatedReplicas;

  @JsonPropertyDescription("How the nodes look in Slurm.")
  private SlurmCountsStatus slurm;

  @JsonPropertyDescription("Revision most nodes run (the old one while a rollout is under way).")
  private String currentRevision;

  @JsonPropertyDescription("Revision of the current template and Slurm settings.")
  private String updateRevision;

  @JsonPropertyDescription("The metadata.generation this status describes.")
  private Long observedGeneration;

  @LabelSelector
  @JsonPropertyDescription("Label selector of the pods (for the scale subresource and HPA).")
  private String selector;

  @JsonPropertyDescription("Ready, Progressing, Degraded and InvalidSpec.")
  private List<Condition> conditions;

  public Integer getReplicas() {
    return replicas;
  }

  public void setReplicas(Integer replicas) {
    this.replicas = replicas;
  }

  public Integer getReadyReplicas() {
    return readyReplicas;
  }

  public void setReadyReplicas(Integer readyReplicas) {
    this.readyReplicas = readyReplicas;
  }

  public Integer getUpdatedReplicas() {
    return updatedReplicas;
  }

  public void setUpdatedReplicas(Integer updatedReplicas) {
    this.updatedReplicas = updatedReplicas;
  }

  public SlurmCountsStatus getSlurm() {
    return slurm;
  }

  public void setSlurm(SlurmCountsStatus slurm) {
    this.slurm = slurm;
  }

  public String getCurrentRevision() {
    return currentRevision;
  }

  public void setCurrentRevision(String currentRevision) {
    this.currentRevision = currentRevision;
  }

  public String getUpdateRevision() {
    return updateRevision;
  }

  public void setUpdateRevision(String updateRevision) {
    this.updateRevision = updateRevision;
  }

  public Long getObservedGeneration() {
    return observedGeneration;
  }

  public void setObservedGeneration(Long observedGeneration) {
    this.observedGeneration = observedGeneration;
  }

  public String getSelector() {
    return selector;
  }

  public void setSelector(String selector) {
    this.selector = selector;
  }

  public List<Condition> getConditions() {
    return conditions;
  }

  public void setConditions(List<Condition> conditions) {
    this.conditions = conditions;
  }
}
