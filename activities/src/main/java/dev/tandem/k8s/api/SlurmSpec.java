package dev.tandem.k8s.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import java.util.List;

/**
 * {@code spec.slurm}: what the nodes tell Slurm. Part of the revision: changing it rolls the nodes.
 *
 * <p>List items carry their pattern as type-use annotations (the generator puts them on {@code
 * items}). No CEL rules here on purpose: a CEL rule over a list of strings needs maxItems and item
 * maxLength for the API server's cost estimate, and a plain pattern says the same for free.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SlurmSpec {

  /** A Slurm partition or feature name: no spaces, commas or operators ({@code & | ! *}). */
  public static final String NAME_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_.:+-]*$";

  /**
   * One GRES as slurm.conf's {@code Gres=} spells it: {@code name[:type][:no_consume]:count}, the
   * count a number with an optional K/M/G/T/P suffix, e.g. {@code gpu:h100:8}, {@code gpu:8},
   * {@code gpu:1g.5gb:7} (a MIG profile as type), {@code bandwidth:lustre:no_consume:4G}. The count
   * is required: Slurm would read {@code gpu:abc} as one GPU of type abc, which is rarely what
   * anyone meant.
   */
  static final String GRES_ENTRY = "[A-Za-z0-9_]+(:[A-Za-z0-9_.-]+)?(:no_consume)?:[0-9]+[KMGTP]?";

  /** One or more GRES, comma-separated, e.g. {@code gpu:h100:8} or {@code gpu:8,nvme:1}. */
  public static final String GRES_PATTERN = "^" + GRES_ENTRY + "(," + GRES_ENTRY + ")*$";

  @Size(max = 64)
  @JsonPropertyDescription("Partitions the nodes join.")
  private List<@Pattern(NAME_PATTERN) @Size(min = 1, max = 64) String> partitions;

  @Size(max = 64)
  @JsonPropertyDescription("Node features (slurm.conf Feature=), used by --constraint.")
  private List<@Pattern(NAME_PATTERN) @Size(min = 1, max = 64) String> features;

  @Pattern(GRES_PATTERN)
  @JsonPropertyDescription("Generic resources (slurm.conf Gres=), e.g. gpu:h100:8.")
  private String gres;

  @Min(1)
  @Max(2147483647)
  @JsonPropertyDescription(
      "Scheduling weight (slurm.conf Weight=): lower weights are allocated first.")
  private Integer weight;

  public List<String> getPartitions() {
    return partitions;
  }

  public void setPartitions(List<String> partitions) {
    this.partitions = partitions;
  }

  public List<String> getFeatures() {
    return features;
  }

  public void setFeatures(List<String> features) {
    this.features = features;
  }

  public String getGres() {
    return gres;
  }

  public void setGres(String gres) {
    this.gres = gres;
  }

  public Integer getWeight() {
    return weight;
  }

  public void setWeight(Integer weight) {
    this.weight = weight;
  }
}
