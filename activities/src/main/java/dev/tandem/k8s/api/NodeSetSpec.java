package dev.tandem.k8s.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.tandem.workflows.nodeset.NodeSetSpecValidator;
import io.fabric8.crd.generator.annotation.PreserveUnknownFields;
import io.fabric8.crd.generator.annotation.SchemaFrom;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.model.annotation.SpecReplicas;

/** {@code spec} of a {@link NodeSet}. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NodeSetSpec {

  @Required
  @Min(0)
  @Max(NodeSetSpecValidator.MAX_NODES)
  @SpecReplicas
  @JsonPropertyDescription(
      "Number of Slurm nodes (slurmd pods). Scale-down drains the highest ordinals first.")
  private Integer replicas;

  /*
   * The CRD keeps only a shallow schema for the template (an object with metadata and spec, each
   * preserving unknown fields) instead of the full PodTemplateSpec schema: the full one makes the
   * CRD several hundred KB (too big for `kubectl apply`'s last-applied annotation, 256 KB), and
   * the API server validates the pod in full when Tandem creates it anyway; a refusal (422) then
   * shows on the NodeSet as a condition with the API server's message. Tandem's converter checks
   * the parts that matter before that (containers present, each with a name and an image).
   */
  @Required
  @SchemaFrom(type = TemplateSchema.class)
  @PreserveUnknownFields
  @JsonPropertyDescription(
      "The slurmd pod template (a Kubernetes PodTemplateSpec: image, resources, nodeSelector,"
          + " affinity, tolerations, env, volumes). Tandem adds its labels, the host name and"
          + " the SLURM_* environment (see docs/nodeset.md).")
  private PodTemplateSpec template;

  @JsonPropertyDescription("What the nodes tell Slurm: partitions, features, GRES, weight.")
  private SlurmSpec slurm;

  @JsonPropertyDescription("How template or Slurm changes roll out to the nodes.")
  private UpdateStrategySpec updateStrategy;

  @JsonPropertyDescription(
      "How long a drain for an update waits for running jobs, and what happens then. Also used"
          + " for scale-down when scaleDown is not set.")
  private DrainSpec drain;

  @JsonPropertyDescription(
      "Drain policy for scale-down and NodeSet deletion; defaults to the drain policy.")
  private DrainSpec scaleDown;

  @JsonPropertyDescription(
      "Automatic repair of broken nodes: triggers, the escalation ladder, budgets. Absent: none."
          + " {} enables every default (docs/nodeset.md, docs/remediation.md).")
  private RemediationSpec remediation;

  @JsonPropertyDescription(
      "Tandem sets replicas itself, between minReplicas and maxReplicas, from Slurm's queue and"
          + " how long the nodes have been idle; a value written by anyone else (kubectl scale) is"
          + " written back over. Absent: replicas is set by hand or by an outside autoscaler"
          + " (docs/nodeset.md).")
  private AutoscalingSpec autoscaling;

  public Integer getReplicas() {
    return replicas;
  }

  public void setReplicas(Integer replicas) {
    this.replicas = replicas;
  }

  public PodTemplateSpec getTemplate() {
    return template;
  }

  public void setTemplate(PodTemplateSpec template) {
    this.template = template;
  }

  public SlurmSpec getSlurm() {
    return slurm;
  }

  public void setSlurm(SlurmSpec slurm) {
    this.slurm = slurm;
  }

  public UpdateStrategySpec getUpdateStrategy() {
    return updateStrategy;
  }

  public void setUpdateStrategy(UpdateStrategySpec updateStrategy) {
    this.updateStrategy = updateStrategy;
  }

  public DrainSpec getDrain() {
    return drain;
  }

  public void setDrain(DrainSpec drain) {
    this.drain = drain;
  }

  public DrainSpec getScaleDown() {
    return scaleDown;
  }

  public void setScaleDown(DrainSpec scaleDown) {
    this.scaleDown = scaleDown;
  }

  public RemediationSpec getRemediation() {
    return remediation;
  }

  public void setRemediation(RemediationSpec remediation) {
    this.remediation = remediation;
  }

  public AutoscalingSpec getAutoscaling() {
    return autoscaling;
  }

  public void setAutoscaling(AutoscalingSpec autoscaling) {
    this.autoscaling = autoscaling;
  }
}
