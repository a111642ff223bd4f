package dev.tandem.k8s.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.crdv2.generator.v1.SchemaCustomizer;
import io.fabric8.kubernetes.api.model.IntOrString;

/**
 * {@code spec.updateStrategy.rollingUpdate}.
 *
 * <p>The generator ignores {@code @Pattern} and {@code @Min} on an {@link IntOrString} field, and a
 * merge patch from a schema customizer replaces (not merges) that field's schema. So the customizer
 * below writes maxUnavailable's whole schema: int-or-string, {@code minimum} for the number form
 * and {@code pattern} for the string form (Kubernetes, like any JSON schema validator, applies each
 * only to its own type). The CRD test asserts the result.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@SchemaCustomizer(
    value = SchemaCustomizer.MergePatchCustomizer.class,
    input =
        "{\"properties\":{\"maxUnavailable\":{"
            + "\"anyOf\":[{\"type\":\"integer\"},{\"type\":\"string\"}],"
            + "\"x-kubernetes-int-or-string\":true,"
            + "\"minimum\":1,"
            + "\"pattern\":\""
            + RollingUpdateSpec.MAX_UNAVAILABLE_PATTERN
            + "\","
            + "\"description\":\""
            + RollingUpdateSpec.MAX_UNAVAILABLE_DESCRIPTION
            + "\"}}}")
public class RollingUpdateSpec {

  /**
   * A count from 1, or a percentage of replicas from 1% to 100%. There is no surge (a Slurm node
   * name belongs to exactly one pod at a time), so 0 would stop every rollout.
   */
  public static final String MAX_UNAVAILABLE_PATTERN = "^([1-9][0-9]*|([1-9][0-9]?|100)%)$";

  static final String MAX_UNAVAILABLE_DESCRIPTION =
      "How many nodes may be drained or replaced at once: a number (1) or a percentage of"
          + " replicas ('25%', rounded down, at least 1). Default 1.";

  private IntOrString maxUnavailable;

  public IntOrString getMaxUnavailable() {
    return maxUnavailable;
  }

  public void setMaxUnavailable(IntOrString maxUnavailable) {
    this.maxUnavailable = maxUnavailable;
  }
}
