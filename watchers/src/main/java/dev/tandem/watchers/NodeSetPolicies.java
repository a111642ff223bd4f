package dev.tandem.watchers;

import dev.tandem.k8s.NodeSetSpecs;
import dev.tandem.workflows.model.NodeSetRef;
import dev.tandem.workflows.model.NodeSetSpecView;
import dev.tandem.workflows.nodeset.NodeSetSpecValidator;
import dev.tandem.workflows.remediation.RemediationPolicy;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The NodeSet watcher's memory of each NodeSet's remediation policy, for the remediation triggers:
 * that of its last valid spec, which is what its workflow enforces.
 */
final class NodeSetPolicies {
  private final Map<NodeSetRef, RemediationPolicy> policies = new ConcurrentHashMap<>();
  private volatile Consumer<NodeSetRef> onChanged = ref -> {};

  void onChanged(Consumer<NodeSetRef> c) {
    this.onChanged = c;
  }

  /** The NodeSet's policy; disabled when unknown. */
  RemediationPolicy policy(NodeSetRef ref) {
    return policies.getOrDefault(ref, RemediationPolicy.disabled());
  }

  /**
   * Remembers the NodeSet's remediation policy: that of a valid spec (converter and validator find
   * no problem), disabled while it is being deleted; an invalid spec keeps the last one. Conversion
   * is in memory only, so this may run on the informer's thread.
   */
  void note(GenericKubernetesResource r) {
    NodeSetRef ref = new NodeSetRef(r.getMetadata().getNamespace(), r.getMetadata().getName());
    RemediationPolicy p;
    if (r.getMetadata().getDeletionTimestamp() != null) {
      p = RemediationPolicy.disabled();
    } else {
      NodeSetSpecView spec;
      try {
        spec = NodeSetSpecs.toView(r);
      } catch (RuntimeException e) {
        return; // unreadable: the workflow reports it; the last valid policy stays
      }
      if (!NodeSetSpecValidator.validate(spec).isEmpty()) {
        return;
      }
      p = spec.remediationPolicy();
    }
    RemediationPolicy before = policies.put(ref, p);
    if (!p.equals(before)) {
      onChanged.accept(ref);
    }
  }

  /** The NodeSet is gone. */
  void forget(NodeSetRef ref) {
    if (policies.remove(ref) != null) {
      onChanged.accept(ref);
    }
  }
}
