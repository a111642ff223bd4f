package dev.tandem.k8s.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.ValidationRule;

/** {@code spec.updateStrategy}: how template or Slurm changes reach the nodes. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "!has(self.rollingUpdate) || !has(self.type) || self.type == 'RollingUpdate'",
    message = "rollingUpdate is only allowed with type RollingUpdate")
public class UpdateStrategySpec {

  /** The strategy types, spelled as in the resource. */
  public enum Type {
    @JsonProperty("RollingUpdate")
    RollingUpdate,
    @JsonProperty("OnDelete")
    OnDelete
  }

  @Default("RollingUpdate")
  @JsonPropertyDescription(
      "RollingUpdate: drain and replace nodes, at most maxUnavailable at a time. OnDelete: new"
          + " pods use the new template only when a pod is deleted (by a user or a remediation).")
  private Type type;

  @JsonPropertyDescription("Parameters of RollingUpdate.")
  private RollingUpdateSpec rollingUpdate;

  public Type getType() {
    return type;
  }

  public void setType(Type type) {
    this.type = type;
  }

  public RollingUpdateSpec getRollingUpdate() {
    return rollingUpdate;
  }

  public void setRollingUpdate(RollingUpdateSpec rollingUpdate) {
    this.rollingUpdate = rollingUpdate;
  }
}
