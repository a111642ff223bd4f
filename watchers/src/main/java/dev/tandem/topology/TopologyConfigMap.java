package dev.tandem.topology;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import java.util.Map;
import java.util.Objects;

/**
 * The ConfigMap Tandem publishes the topology in ({@value #NAME}, in the worker's namespace), which
 * the chart mounts into slurmctld's configuration directory.
 */
public final class TopologyConfigMap {
  public static final String NAME = "tandem-topology";
  public static final String CONF = "topology.conf";
  public static final String YAML = "topology.yaml";

  /** The {@code TANDEM_TOPOLOGY} value it was rendered from. */
  public static final String SPEC_ANNOTATION = "tandem.dev/topology";

  private TopologyConfigMap() {}

  public static ConfigMap of(String namespace, Topology t) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withName(NAME)
        .withNamespace(namespace)
        .withLabels(Map.of("app.kubernetes.io/managed-by", "tandem"))
        .withAnnotations(Map.of(SPEC_ANNOTATION, t.spec().toString()))
        .endMetadata()
        .withData(Map.of(CONF, t.conf(), YAML, t.yaml()))
        .build();
  }

  /** Whether {@code cm} already holds exactly {@code t}. */
  public static boolean holds(ConfigMap cm, Topology t) {
    Map<String, String> data = cm.getData() == null ? Map.of() : cm.getData();
    Map<String, String> ann =
        cm.getMetadata().getAnnotations() == null ? Map.of() : cm.getMetadata().getAnnotations();
    return Objects.equals(data.get(CONF), t.conf())
        && Objects.equals(data.get(YAML), t.yaml())
        && Objects.equals(ann.get(SPEC_ANNOTATION), t.spec().toString());
  }
}
