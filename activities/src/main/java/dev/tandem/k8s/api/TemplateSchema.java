package dev.tandem.k8s.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.PreserveUnknownFields;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import java.util.List;
import java.util.Map;

/**
 * The schema the CRD carries for {@code spec.template}: its shape and the few fields every slurmd
 * pod needs, not the full PodTemplateSpec (see {@link NodeSetSpec} for why). Everything else is
 * kept as written ({@code x-kubernetes-preserve-unknown-fields}) and validated by the API server
 * when Tandem creates the pod. Never instantiated: the generator reads it through
 * {@code @SchemaFrom}.
 */
@PreserveUnknownFields
public final class TemplateSchema {
  private TemplateSchema() {}

  @JsonPropertyDescription("Labels and annotations for the pods (Tandem adds its own labels).")
  public Metadata metadata;

  @Required
  @JsonPropertyDescription("A Kubernetes PodSpec.")
  public Spec spec;

  /** Shape of {@code template.metadata}. */
  @PreserveUnknownFields
  public static final class Metadata {
    private Metadata() {}

    public Map<String, String> labels;
    public Map<String, String> annotations;
  }

  /** Shape of {@code template.spec}. */
  @PreserveUnknownFields
  public static final class Spec {
    private Spec() {}

    @Required
    @Size(min = 1)
    @JsonPropertyDescription("The pod's containers; one of them runs slurmd.")
    public List<Container> containers;
  }

  /** Shape of one container. */
  @PreserveUnknownFields
  public static final class Container {
    private Container() {}

    @Required public String name;

    @Required
    @JsonPropertyDescription("Container image, e.g. a slurmd image (see docs/nodeset.md).")
    public String image;
  }
}
