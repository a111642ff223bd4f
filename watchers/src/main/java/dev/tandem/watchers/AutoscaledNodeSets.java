package dev.tandem.watchers;

import dev.tandem.workflows.model.NodeSetRef;
import dev.tandem.workflows.model.NodeSetSpecView;
import dev.tandem.workflows.nodeset.NodeSetSpecValidator;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * The autoscaled NodeSets among those the NodeSet informer caches, for the {@link DemandFeed},
 * which asks on every Slurm poll: each NodeSet's spec is converted once per {@code
 * resourceVersion}, not on every poll.
 *
 * <p>A NodeSet counts when it is not being deleted and the view of its last valid spec (converter
 * and validator find no problem) has {@code autoscaling}: an invalid spec leaves the last valid one
 * in force, as in its workflow. Called from the poller's thread; synchronized all the same.
 */
final class AutoscaledNodeSets {
  /** A NodeSet as last converted: its last valid view, or null when it never had one. */
  private record Seen(String uid, String resourceVersion, NodeSetSpecView valid) {}

  private final Function<GenericKubernetesResource, NodeSetSpecView> convert;
  private Map<NodeSetRef, Seen> seen = new HashMap<>();

  /**
   * @param convert the NodeSet to its view ({@code NodeSetSpecs::toView}); must not throw
   */
  AutoscaledNodeSets(Function<GenericKubernetesResource, NodeSetSpecView> convert) {
    this.convert = convert;
  }

  /** The autoscaled NodeSets of {@code cached} (the whole cache) with the views in force. */
  synchronized Map<NodeSetRef, NodeSetSpecView> of(List<GenericKubernetesResource> cached) {
    Map<NodeSetRef, Seen> next = new HashMap<>();
    Map<NodeSetRef, NodeSetSpecView> out = new LinkedHashMap<>();
    for (GenericKubernetesResource r : cached) {
      if (r.getMetadata().getDeletionTimestamp() != null) {
        continue; // its workflow is taking it down: nothing to scale
      }
      NodeSetRef ref = new NodeSetRef(r.getMetadata().getNamespace(), r.getMetadata().getName());
      String uid = r.getMetadata().getUid();
      String version = r.getMetadata().getResourceVersion();
      Seen before = seen.get(ref);
      if (before != null && !Objects.equals(before.uid(), uid)) {
        before = null; // another NodeSet of that name: the old one's spec says nothing of it
      }
      Seen now =
          before != null && version != null && version.equals(before.resourceVersion())
              ? before
              : new Seen(uid, version, valid(r, before));
      next.put(ref, now);
      if (now.valid() != null && now.valid().autoscaling() != null) {
        out.put(ref, now.valid());
      }
    }
    seen = next; // NodeSets gone from the cache are forgotten
    return out;
  }

  private NodeSetSpecView valid(GenericKubernetesResource r, Seen before) {
    NodeSetSpecView v = convert.apply(r);
    if (NodeSetSpecValidator.validate(v).isEmpty()) {
      return v;
    }
    return before == null ? null : before.valid();
  }
}
