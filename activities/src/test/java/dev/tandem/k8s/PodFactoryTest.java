package dev.tandem.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.model.NodeRef;
import dev.tandem.workflows.model.NodeSetSpecView;
import dev.tandem.workflows.model.PodRequest;
import dev.tandem.workflows.model.PodTemplate;
import dev.tandem.workflows.model.SlurmSettings;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class PodFactoryTest {
  private static final String UID = "0b5c7f5e-1111-4b7e-9a55-000000000001";
  private static final String CRD_UID = "7d1e0c2a-2222-4c3d-8e4f-000000000002";

  private static PodRequest request(String templateJson, SlurmSettings s, String ownerUid) {
    return new PodRequest(
        NodeRef.of("hpc", "gpu-a", 2), new PodTemplate("abcdef0123", templateJson, s), ownerUid);
  }

  @Test
  void buildsThePodFromTheExample() {
    NodeSetSpecView v = NodeSetSpecs.toView(Fixtures.example());
    Pod pod =
        PodFactory.build(new PodRequest(NodeRef.of("hpc", "gpu-a", 2), v.template(), UID), CRD_UID);

    assertEquals("gpu-a-2", pod.getMetadata().getName());
    assertEquals("hpc", pod.getMetadata().getNamespace());
    Map<String, String> labels = pod.getMetadata().getLabels();
    assertEquals("gpu-a", labels.get("tandem.dev/nodeset"));
    assertEquals("2", labels.get("tandem.dev/ordinal"));
    assertEquals(v.template().revision(), labels.get("tandem.dev/revision"));
    assertEquals("slurmd", labels.get("app.kubernetes.io/name"));
    assertEquals("tandem", labels.get("app.kubernetes.io/managed-by"));
    assertEquals("ml-platform", labels.get("team"), "template labels are kept");
    assertEquals("ml-platform", pod.getMetadata().getAnnotations().get("example.com/owner"));

    OwnerReference owner = pod.getMetadata().getOwnerReferences().get(0);
    assertEquals("tandem.dev/v1alpha1", owner.getApiVersion());
    assertEquals("NodeSet", owner.getKind());
    assertEquals("gpu-a", owner.getName());
    assertEquals(UID, owner.getUid());
    assertTrue(owner.getController());
    assertTrue(owner.getBlockOwnerDeletion());
    assertEquals(2, pod.getMetadata().getOwnerReferences().size());
    OwnerReference anchor = pod.getMetadata().getOwnerReferences().get(1);
    assertEquals("apiextensions.k8s.io/v1", anchor.getApiVersion());
    assertEquals("CustomResourceDefinition", anchor.getKind());
    assertEquals("nodesets.tandem.dev", anchor.getName());
    assertEquals(CRD_UID, anchor.getUid());
    assertFalse(anchor.getController(), "the NodeSet stays the only controller");
    assertFalse(anchor.getBlockOwnerDeletion(), "blocks nothing: needs no RBAC on the CRD");

    assertEquals("gpu-a-2", pod.getSpec().getHostname());
    assertEquals(60L, pod.getSpec().getTerminationGracePeriodSeconds(), "template spec is kept");
    assertEquals("nvidia.com/gpu", pod.getSpec().getTolerations().get(0).getKey());
    Container c = pod.getSpec().getContainers().get(0);
    assertEquals("tandem/slurmd:22.05", c.getImage());
    assertEquals("4Gi", c.getResources().getLimits().get("memory").toString());
    Map<String, String> env = env(c);
    assertEquals("gpu-a-2", env.get("SLURM_NODE_NAME"));
    assertEquals("h100,ib", env.get("SLURM_NODE_FEATURES"));
    assertEquals("gpu:h100:8", env.get("SLURM_NODE_GRES"));
    assertEquals("gpu", env.get("SLURM_NODE_PARTITIONS"));
    assertEquals("10", env.get("SLURM_NODE_WEIGHT"));
    assertEquals("Feature=h100,ib Gres=gpu:h100:8 Weight=10", env.get("SLURM_NODE_CONF"));
    assertEquals("gpu-a", env.get("TANDEM_NODESET"));
    assertEquals("2", env.get("TANDEM_NODE_ORDINAL"));
    assertEquals(v.template().revision(), env.get("TANDEM_REVISION"));
  }

  @Test
  void tandemOwnsItsLabelsHostnameAndEnvironmentButKeepsTheRest() {
    String t =
        "{\"metadata\":{\"labels\":{\"tandem.dev/nodeset\":\"other\",\"x\":\"y\"}},"
            + "\"spec\":{\"hostname\":\"h\",\"initContainers\":[{\"name\":\"init\",\"image\":\"i\"}],"
            + "\"containers\":[{\"name\":\"slurmd\",\"image\":\"s\",\"env\":["
            + "{\"name\":\"SLURM_NODE_NAME\",\"value\":\"wrong\"},{\"name\":\"KEEP\",\"value\":\"1\"}]},"
            + "{\"name\":\"sidecar\",\"image\":\"c\"}]}}";
    Pod pod = PodFactory.build(request(t, SlurmSettings.none(), null), CRD_UID);
    assertEquals("gpu-a", pod.getMetadata().getLabels().get("tandem.dev/nodeset"));
    assertEquals("y", pod.getMetadata().getLabels().get("x"));
    assertEquals("gpu-a-2", pod.getSpec().getHostname());
    assertEquals(
        List.of(Owners.anchor(CRD_UID)),
        pod.getMetadata().getOwnerReferences(),
        "no NodeSet owner without its uid; the anchor all the same");
    Container slurmd = pod.getSpec().getContainers().get(0);
    List<String> names = slurmd.getEnv().stream().map(EnvVar::getName).collect(Collectors.toList());
    assertEquals(1, names.stream().filter("SLURM_NODE_NAME"::equals).count(), names.toString());
    assertEquals("gpu-a-2", env(slurmd).get("SLURM_NODE_NAME"));
    assertEquals("1", env(slurmd).get("KEEP"));
    assertEquals("", env(slurmd).get("SLURM_NODE_CONF"));
    assertEquals("gpu-a-2", env(pod.getSpec().getContainers().get(1)).get("SLURM_NODE_NAME"));
    assertEquals("gpu-a-2", env(pod.getSpec().getInitContainers().get(0)).get("SLURM_NODE_NAME"));
    assertTrue(
        pod.getMetadata().getAnnotations() == null || pod.getMetadata().getAnnotations().isEmpty());
  }

  @Test
  void refusesTemplatesThatCannotMakeAPod() {
    assertThrows(
        IllegalArgumentException.class,
        () -> PodFactory.build(request("{bad", SlurmSettings.none(), UID), CRD_UID));
    assertThrows(
        IllegalArgumentException.class,
        () -> PodFactory.build(request("{\"spec\":{}}", SlurmSettings.none(), UID), CRD_UID));
    assertThrows(
        IllegalArgumentException.class,
        () -> PodFactory.build(request("", SlurmSettings.none(), UID), CRD_UID));
    assertThrows(IllegalArgumentException.class, () -> PodFactory.build(null, CRD_UID));
    assertThrows(
        IllegalArgumentException.class,
        () -> PodFactory.check(request("{bad", SlurmSettings.none(), UID)));
  }

  /** No pod without its anchor: the garbage collector would take it with a NodeSet deletion. */
  @Test
  void refusesToBuildAPodWithoutItsAnchor() {
    NodeSetSpecView v = NodeSetSpecs.toView(Fixtures.example());
    PodRequest r = new PodRequest(NodeRef.of("hpc", "gpu-a", 2), v.template(), UID);
    assertThrows(IllegalArgumentException.class, () -> PodFactory.build(r, null));
    assertThrows(IllegalArgumentException.class, () -> PodFactory.build(r, " "));
    PodFactory.check(r); // the request itself is fine
  }

  private static Map<String, String> env(Container c) {
    return c.getEnv().stream()
        .collect(Collectors.toMap(EnvVar::getName, e -> e.getValue() == null ? "" : e.getValue()));
  }
}
