package dev.tandem.watchers;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.tandem.k8s.CrdAnchor;
import dev.tandem.k8s.Json;
import dev.tandem.k8s.Owners;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives slurmd pods made by an older Tandem their second owner, the anchor ({@link Owners}), so
 * that a NodeSet deleted with {@code --cascade=foreground} cannot take them (and their jobs) with
 * it. New pods are created with it ({@code KubeActivitiesImpl.ensurePod}).
 *
 * <p>Why here: the pod watcher sees every slurmd pod when it starts (each term of leadership) and
 * again on every resync, from its cache, without an extra read. {@code ensurePod} would see only
 * pods a node workflow provisions again; a node already {@code ready} when Tandem is upgraded never
 * calls it. Only pods a NodeSet controls are touched (a pod that merely carries the label is not
 * Tandem's: an anchor would make the garbage collector delete it with the CRD).
 *
 * <ol>
 *   <li>On every pod version the informer delivers, in memory: skip pods being deleted, pods no
 *       NodeSet controls, and pods that already hold the anchor (with the uid last read).
 *   <li>Off the informer thread (the coalescer, one task per pod): read the CRD's uid (cached by
 *       {@link CrdAnchor}); if it cannot be read, fail the task (the coalescer retries, the next
 *       resync tries again).
 *   <li>Replace the pod's ownerReferences by the same list plus the anchor, with a JSON patch that
 *       carries the resourceVersion the pod was seen at: a pod changed meanwhile gives 409 and the
 *       newer version, delivered by the informer, starts again at step 1.
 * </ol>
 */
final class PodAnchors {
  private static final Logger log = LoggerFactory.getLogger(PodAnchors.class);

  private final KubernetesClient client;
  private final CrdAnchor anchor;
  private final Coalescer coalescer;
  private final WatcherMetrics metrics;

  PodAnchors(
      KubernetesClient client, CrdAnchor anchor, Coalescer coalescer, WatcherMetrics metrics) {
    this.client = client;
    this.anchor = anchor;
    this.coalescer = coalescer;
    this.metrics = metrics;
  }

  /** Step 1; hands a pod that needs the anchor to the coalescer. Never blocks. */
  void check(Pod pod) {
    if (!needs(pod, anchor.cachedUid())) {
      return;
    }
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    coalescer.submit(ns + "/" + name + ":anchor", () -> add(pod));
  }

  /** Whether {@code pod} is Tandem's, alive, and lacks the anchor ({@code uid} null: any). */
  static boolean needs(Pod pod, String uid) {
    if (pod.getMetadata() == null || pod.getMetadata().getDeletionTimestamp() != null) {
      return false;
    }
    List<OwnerReference> refs = pod.getMetadata().getOwnerReferences();
    if (!Owners.controlledByNodeSet(refs)) {
      return false;
    }
    return uid == null ? refs.stream().noneMatch(Owners::isAnchor) : !Owners.hasAnchor(refs, uid);
  }

  /** Steps 2 and 3. */
  private void add(Pod pod) {
    String uid = anchor.uid();
    if (!needs(pod, uid)) {
      return;
    }
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    List<OwnerReference> refs = Owners.withAnchor(pod.getMetadata().getOwnerReferences(), uid);
    ArrayNode patch = JsonNodeFactory.instance.arrayNode();
    // Not a "test" op: a failed test is a 422, which reads as a refusal; a stale resourceVersion
    // in the patched object is a 409 on a real API server and on the local one.
    patch
        .addObject()
        .put("op", "replace")
        .put("path", "/metadata/resourceVersion")
        .put("value", pod.getMetadata().getResourceVersion());
    patch
        .addObject()
        .put("op", "add") // replaces the list: it exists on every pod a NodeSet controls
        .put("path", "/metadata/ownerReferences")
        .set("value", Json.MAPPER.valueToTree(refs));
    try {
      // Through the pod seen, not by name: fabric8 7.8 reads an object again before a patch by
      // name; the patch's resourceVersion guards it.
      client
          .pods()
          .inNamespace(ns)
          .resource(pod)
          .patch(PatchContext.of(PatchType.JSON), Json.SERIALIZATION.asJson(patch));
      log.info("pod {}/{}: added its second owner, CRD {}", ns, name, Owners.CRD_NAME);
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404 || e.getCode() == 409) {
        return; // gone, or changed: the informer brings the newer version back to check()
      }
      metrics.error("pod-anchor");
      throw e;
    }
  }
}
