package dev.tandem.k8s.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.tandem.workflows.nodeset.NodeSetSpecValidator;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * {@code spec.autoscaling}: the NodeSet's workflow sets {@code spec.replicas} itself, within these
 * bounds, from Slurm's queue and its nodes' idleness (docs/nodeset.md, "Autoscaling"). Absent: the
 * replicas are whatever is written to them. Converted and checked again by {@code
 * dev.tandem.k8s.AutoscalingReader}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "!has(self.minReplicas) || self.minReplicas <= self.maxReplicas",
    message = "minReplicas must not be more than maxReplicas")
public class AutoscalingSpec {

  @Default("0")
  @Min(0)
  @Max(NodeSetSpecValidator.MAX_NODES)
  @JsonPropertyDescription(
      "Never fewer nodes than this. 0 (the default) lets every node go once all have been idle"
          + " for idleTime.")
  private Integer minReplicas;

  @Required
  @Min(1)
  @Max(NodeSetSpecValidator.MAX_NODES)
  @JsonPropertyDescription("Never more nodes than this, however long the queue.")
  private Integer maxReplicas;

  @Default("10m")
  @Pattern(DrainSpec.DURATION_PATTERN)
  @JsonPropertyDescription(
      "How long a node must be idle in Slurm (no job) before it is given back, e.g. 10m, 1h."
          + " Default 10m; 0s is refused.")
  private String idleTime;

  @Default("5s")
  @Pattern(DrainSpec.DURATION_PATTERN)
  @JsonPropertyDescription(
      "How long the queue must keep asking for more nodes before they are added, e.g. 5s, 1m"
          + " (a job about to start on a node that is freeing up asks for none). Default 5s; 0s"
          + " adds them at once.")
  private String scaleUpDelay;

  public Integer getMinReplicas() {
    return minReplicas;
  }

  public void setMinReplicas(Integer minReplicas) {
    this.minReplicas = minReplicas;
  }

  public Integer getMaxReplicas() {
    return maxReplicas;
  }

  public void setMaxReplicas(Integer maxReplicas) {
    this.maxReplicas = maxReplicas;
  }

  public String getIdleTime() {
    return idleTime;
  }

  public void setIdleTime(String idleTime) {
    this.idleTime = idleTime;
  }

  public String getScaleUpDelay() {
    return scaleUpDelay;
  }

  public void setScaleUpDelay(String scaleUpDelay) {
    this.scaleUpDelay = scaleUpDelay;
  }
}
