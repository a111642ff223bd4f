package dev.tandem.workflows.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/**
 * What a NodeSet tells Slurm about its nodes. Part of the pod revision: changing it rolls the
 * nodes.
 *
 * @param partitions partitions the nodes join
 * @param features node features
 * @param gres generic resources, e.g. {@code gpu:h100:8}, or null
 * @param weight scheduling weight, or null
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record SlurmSettings(
    List<String> partitions, List<String> features, String gres, Integer weight) {
  public SlurmSettings {
    partitions = partitions == null ? List.of() : List.copyOf(partitions);
    features = features == null ? List.of() : List.copyOf(features);
  }

  public static SlurmSettings none() {
    return new SlurmSettings(List.of(), List.of(), null, null);
  }
}
