package dev.tandem.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

class OwnersTest {
  @Test
  void aNodeSetDependentHasTheNodeSetAsControllerAndTheCrdAsAnchor() {
    List<OwnerReference> refs = Owners.of("gpu-a", "ns-uid", "crd-uid");
    assertEquals(2, refs.size());
    OwnerReference nodeSet = refs.get(0);
    assertEquals("tandem.dev/v1alpha1", nodeSet.getApiVersion());
    assertEquals("NodeSet", nodeSet.getKind());
    assertEquals("gpu-a", nodeSet.getName());
    assertEquals("ns-uid", nodeSet.getUid());
    assertTrue(nodeSet.getController());
    assertTrue(nodeSet.getBlockOwnerDeletion());
    OwnerReference anchor = refs.get(1);
    assertEquals("apiextensions.k8s.io/v1", anchor.getApiVersion());
    assertEquals("CustomResourceDefinition", anchor.getKind());
    assertEquals("nodesets.tandem.dev", anchor.getName());
    assertEquals("crd-uid", anchor.getUid());
    assertFalse(anchor.getController());
    assertFalse(anchor.getBlockOwnerDeletion());
    assertTrue(Owners.controlledByNodeSet(refs));
    assertTrue(Owners.hasAnchor(refs, "crd-uid"));
    assertFalse(Owners.hasAnchor(refs, "another-crd-uid"));
  }

  @Test
  void withAnchorAddsItOnceAndReplacesOneOfAnEarlierCrd() {
    List<OwnerReference> old = List.of(Owners.nodeSet("gpu-a", "ns-uid"));
    assertFalse(Owners.hasAnchor(old, "crd-uid"));
    List<OwnerReference> anchored = Owners.withAnchor(old, "crd-uid");
    assertEquals(Owners.of("gpu-a", "ns-uid", "crd-uid"), anchored);
    assertEquals(anchored, Owners.withAnchor(anchored, "crd-uid"), "idempotent");
    List<OwnerReference> renewed = Owners.withAnchor(anchored, "new-crd-uid");
    assertEquals(Owners.of("gpu-a", "ns-uid", "new-crd-uid"), renewed);
  }

  @Test
  void onlyATandemNodeSetControllerMarksAPodAsTandems() {
    assertFalse(Owners.controlledByNodeSet(null));
    assertFalse(Owners.controlledByNodeSet(List.of(Owners.anchor("crd-uid"))));
    OwnerReference rs =
        new OwnerReferenceBuilder()
            .withApiVersion("apps/v1")
            .withKind("ReplicaSet")
            .withName("web")
            .withUid("rs-uid")
            .withController(true)
            .build();
    assertFalse(Owners.controlledByNodeSet(List.of(rs)));
    OwnerReference notController =
        new OwnerReferenceBuilder(Owners.nodeSet("gpu-a", "ns-uid")).withController(false).build();
    assertFalse(Owners.controlledByNodeSet(List.of(notController)));
  }
}
