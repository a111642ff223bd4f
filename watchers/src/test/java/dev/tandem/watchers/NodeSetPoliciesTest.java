package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.k8s.NodeSetSpecs;
import dev.tandem.workflows.model.NodeSetRef;
import dev.tandem.workflows.remediation.RemediationPolicy;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The remediation policy the watchers use per NodeSet: its last valid spec's. */
class NodeSetPoliciesTest {
  private static final String TEMPLATE =
      "  template:\n    spec:\n      containers:\n      - name: slurmd\n        image: x\n";

  private final NodeSetPolicies policies = new NodeSetPolicies();
  private final List<NodeSetRef> told = new ArrayList<>();
  private final NodeSetRef ref = new NodeSetRef("default", "gpu");

  NodeSetPoliciesTest() {
    policies.onChanged(told::add);
  }

  private static GenericKubernetesResource nodeSet(String name, String yamlSpec) {
    return K8sObjects.in("default", K8sObjects.nodeSet(name, yamlSpec));
  }

  @Test
  void aValidSpecsPolicyIsKeptAndToldOnceAnInvalidOneChangesNothing() {
    GenericKubernetesResource valid = nodeSet("gpu", "  replicas: 2\n" + TEMPLATE);
    assertEquals(
        List.of(),
        dev.tandem.workflows.nodeset.NodeSetSpecValidator.validate(NodeSetSpecs.toView(valid)));
    policies.note(valid);
    policies.note(valid); // a resync
    assertEquals(List.of(ref), told);
    assertEquals(NodeSetSpecs.toView(valid).remediationPolicy(), policies.policy(ref));

    policies.note(nodeSet("gpu", "  replicas: -3\n" + TEMPLATE));
    assertEquals(List.of(ref), told, "an invalid spec leaves the last valid policy in force");
    assertEquals(NodeSetSpecs.toView(valid).remediationPolicy(), policies.policy(ref));

    policies.forget(ref);
    assertEquals(List.of(ref, ref), told);
    assertFalse(policies.policy(ref).enabled());
  }

  @Test
  void anInvalidSpecLeavesTheLastValidRemediationPolicyInForce() {
    policies.note(nodeSet("gpu", "  replicas: 2\n  remediation: {}\n" + TEMPLATE));
    assertEquals(RemediationPolicy.defaults(), policies.policy(ref));
    policies.note(
        nodeSet("gpu", "  replicas: -3\n  remediation:\n    notReadyFor: 1m\n" + TEMPLATE));
    assertEquals(RemediationPolicy.defaults(), policies.policy(ref));
    policies.note(
        nodeSet("gpu", "  replicas: 2\n  remediation:\n    notReadyFor: 1m\n" + TEMPLATE));
    assertEquals(60, policies.policy(ref).notReadySeconds());
    assertTrue(policies.policy(ref).enabled());
    assertEquals(List.of(ref, ref), told);
  }

  @Test
  void aNodeSetFirstSeenInvalidHasNoPolicyYet() {
    policies.note(nodeSet("gpu", "  replicas: -3\n" + TEMPLATE));
    assertEquals(List.of(), told);
    assertFalse(policies.policy(ref).enabled());
    policies.forget(ref);
    assertEquals(List.of(), told, "nothing known, nothing to forget");
  }
}
