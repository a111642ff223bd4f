package dev.tandem.k8s.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;

/**
 * {@code spec.remediation}: automatic repair of broken nodes (docs/nodeset.md,
 * docs/remediation.md). Absent: no automatic remediation for this NodeSet's nodes. {@code {}}:
 * every default, which suits GPU clusters. Converted and checked again by {@code
 * dev.tandem.k8s.RemediationReader}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RemediationSpec {

  @JsonPropertyDescription(
      "Whether Tandem starts remediations by itself for nodes hosting this NodeSet's pods."
          + " Default true (the block's presence enables it); false keeps the policy for"
          + " operator-started remediations only.")
  private Boolean enabled;

  @Pattern(DrainSpec.DURATION_PATTERN)
  @JsonPropertyDescription(
      "How long a Kubernetes node's Ready condition must be False or Unknown before remediation"
          + " starts, e.g. 5m. Default 5m.")
  private String notReadyFor;

  @JsonPropertyDescription(
      "Node condition types that start a remediation when True (node-problem-detector, GPU"
          + " health agents). Default [GpuUnhealthy, KernelDeadlock].")
  private List<String> conditions;

  @JsonPropertyDescription(
      "Regular expressions (case-insensitive, matched anywhere) for Slurm drain/DOWN reasons"
          + " that mean broken hardware. Default ['not responding', 'kill task failed',"
          + " '\\bNHC\\b', '\\bXID\\b'].")
  private List<String> slurmReasons;

  @JsonPropertyDescription(
      "The ladder: actions tried in order, each until the node is healthy again or its timeout."
          + " Each action at most once. Default RestartSlurmd 10m, Reboot 30m, Replace 2h.")
  // maxItems bounds the CEL rule's cost (an API server refuses a rule over an unbounded list);
  // three is all there can be with each action once.
  @Size(min = 1, max = 3)
  @ValidationRule(
      value = "self.all(x, self.exists_one(y, y.action == x.action))",
      message = "each action may appear once in steps")
  private List<RemediationStepSpec> steps;

  @JsonPropertyDescription(
      "How long to wait for running jobs after the drain, and what then. Default 2h, then Force.")
  private RemediationJobsSpec jobs;

  @Pattern(DrainSpec.DURATION_PATTERN)
  @JsonPropertyDescription("How often a step re-checks the node's health, e.g. 30s. Default 30s.")
  private String recheckEvery;

  @JsonPropertyDescription("What the Replace step does to the Kubernetes node.")
  private RemediationReplaceSpec replace;

  @JsonPropertyDescription(
      "How many nodes may be in remediation at once, per NodeSet and per topology domain.")
  private RemediationBudgetSpec budget;

  @JsonPropertyDescription(
      "Optional: a Slurm batch job that must pass on the node after a step's re-check passed,"
          + " before the node returns to service. Absent: no health-check job.")
  private RemediationHealthCheckSpec healthCheck;

  public Boolean getEnabled() {
    return enabled;
  }

  public void setEnabled(Boolean enabled) {
    this.enabled = enabled;
  }

  public String getNotReadyFor() {
    return notReadyFor;
  }

  public void setNotReadyFor(String notReadyFor) {
    this.notReadyFor = notReadyFor;
  }

  public List<String> getConditions() {
    return conditions;
  }

  public void setConditions(List<String> conditions) {
    this.conditions = conditions;
  }

  public List<String> getSlurmReasons() {
    return slurmReasons;
  }

  public void setSlurmReasons(List<String> slurmReasons) {
    this.slurmReasons = slurmReasons;
  }

  public List<RemediationStepSpec> getSteps() {
    return steps;
  }

  public void setSteps(List<RemediationStepSpec> steps) {
    this.steps = steps;
  }

  public RemediationJobsSpec getJobs() {
    return jobs;
  }

  public void setJobs(RemediationJobsSpec jobs) {
    this.jobs = jobs;
  }

  public String getRecheckEvery() {
    return recheckEvery;
  }

  public void setRecheckEvery(String recheckEvery) {
    this.recheckEvery = recheckEvery;
  }

  public RemediationReplaceSpec getReplace() {
    return replace;
  }

  public void setReplace(RemediationReplaceSpec replace) {
    this.replace = replace;
  }

  public RemediationBudgetSpec getBudget() {
    return budget;
  }

  public void setBudget(RemediationBudgetSpec budget) {
    this.budget = budget;
  }

  public RemediationHealthCheckSpec getHealthCheck() {
    return healthCheck;
  }

  public void setHealthCheck(RemediationHealthCheckSpec healthCheck) {
    this.healthCheck = healthCheck;
  }
}
