package dev.tandem.k8s.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.fabric8.crdv2.generator.v1.SchemaCustomizer;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.IntOrString;

/**
 * {@code spec.updateStrategy.rollingUpdate}.
 *
 * <p>The generator ignores {@code @Pattern} and {@code @Min} on an {@link IntOrString} field, and a
 * merge patch from a schema customizer replaces (not merges) that field's schema. So the customizer
 * below writes maxUnavailable's whole schema: int-or-string, {@code minimum} for the number form
 * and {@code pattern} for the string form (Kubernetes, like any JSON schema validator, applies each
 * only to its own type). The patch replaces the whole {@code properties} object, so it also writes
 * topologyKey's and domainOrder's schemas. The CRD test asserts the result.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "!has(self.domainOrder) || has(self.topologyKey)",
    message = "domainOrder needs topologyKey, the node label naming the domain")
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
            + "\"},"
            + "\"topologyKey\":{\"type\":\"string\",\"maxLength\":316,\"pattern\":\""
            + RollingUpdateSpec.LABEL_KEY_PATTERN_IN_JSON
            + "\",\"description\":\""
            + RollingUpdateSpec.TOPOLOGY_KEY_DESCRIPTION
            + "\"},"
            + "\"domainOrder\":{\"type\":\"string\",\"enum\":[\"idleFirst\",\"name\"],"
            + "\"description\":\""
            + RollingUpdateSpec.DOMAIN_ORDER_DESCRIPTION
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

  /** A Kubernetes label key: optional DNS-subdomain prefix and '/', then a name. */
  public static final String LABEL_KEY_PATTERN =
      "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
          + "[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$";

  /** {@link #LABEL_KEY_PATTERN} with its backslash escaped for a JSON string. */
  static final String LABEL_KEY_PATTERN_IN_JSON =
      "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
          + "[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$";

  static final String TOPOLOGY_KEY_DESCRIPTION =
      "A Kubernetes node label naming a topology domain (e.g. topology.tandem.dev/block). Set:"
          + " the update goes one domain at a time (the label's value on the node each pod runs"
          + " on; unlabelled or unscheduled pods form the domain '', last), at most"
          + " maxUnavailable of that domain's nodes out at once (a percentage counts the"
          + " domain's nodes), and never nodes of two domains out at once.";

  static final String DOMAIN_ORDER_DESCRIPTION =
      "With topologyKey: idleFirst (default) rolls domains where no Slurm job runs first, then by"
          + " name; name rolls them by name.";

  /** The domain orders, spelled as in the resource. */
  public enum DomainOrder {
    @JsonProperty("idleFirst")
    idleFirst,
    @JsonProperty("name")
    name
  }

  private IntOrString maxUnavailable;

  private String topologyKey;

  private DomainOrder domainOrder;

  public String getTopologyKey() {
    return topologyKey;
  }

  public void setTopologyKey(String topologyKey) {
    this.topologyKey = topologyKey;
  }

  public DomainOrder getDomainOrder() {
    return domainOrder;
  }

  public void setDomainOrder(DomainOrder domainOrder) {
    this.domainOrder = domainOrder;
  }

  public IntOrString getMaxUnavailable() {
    return maxUnavailable;
  }

  public void setMaxUnavailable(IntOrString maxUnavailable) {
    this.maxUnavailable = maxUnavailable;
  }
}
