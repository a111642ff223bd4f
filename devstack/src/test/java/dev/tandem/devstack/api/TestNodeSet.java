package dev.tandem.devstack.api;

import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.Map;

/** A typed client class for the test CRD (test-crds/nodesets.tandem.dev.yaml). */
@Group("tandem.dev")
@Version("v1alpha1")
@Kind("NodeSet")
@Plural("nodesets")
public class TestNodeSet extends CustomResource<TestNodeSet.Spec, TestNodeSet.Status>
    implements Namespaced {
  private static final long serialVersionUID = 1L;

  public static class Spec {
    public Integer replicas;
    public Map<String, Object> template;
    public String partition;
    public java.util.List<String> features;
  }

  public static class Status {
    public Integer replicas;
    public Integer readyReplicas;
    public String selector;
    public Long observedGeneration;
  }

  static TestNodeSet of(String name, int replicas) {
    TestNodeSet n = new TestNodeSet();
    n.getMetadata().setName(name);
    Spec s = new Spec();
    s.replicas = replicas;
    s.template =
        Map.of(
            "spec",
            Map.of(
                "containers",
                java.util.List.of(Map.of("name", "slurmd", "image", "tandem/slurmd:22.05"))));
    s.partition = "gpu";
    n.setSpec(s);
    return n;
  }
}
