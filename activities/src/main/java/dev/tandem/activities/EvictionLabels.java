package dev.tandem.activities;

import dev.tandem.k8s.PodLabels;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sets or removes the pod label {@link PodLabels#EVICTABLE}, idempotently:
 *
 * <ol>
 *   <li>Read the pod. Absent, or another uid under the name (a replacement, created without the
 *       label): done.
 *   <li>The label already as asked: done.
 *   <li>JSON patch with a {@code test} of the uid (and, for a removal, of the label's value), so
 *       the patch can only touch the pod that was read and a removal never fails on a missing
 *       label.
 *   <li>A failed test (422 on a real API server) or a conflict (409): the pod changed between read
 *       and patch; read again from step 1, a bounded number of times.
 * </ol>
 */
final class EvictionLabels {
  private static final Logger log = LoggerFactory.getLogger(EvictionLabels.class);
  private static final String POINTER =
      "/metadata/labels/" + PodLabels.EVICTABLE.replace("/", "~1");

  private final KubernetesClient client;

  EvictionLabels(KubernetesClient client) {
    this.client = client;
  }

  void mark(String namespace, String name, String uid, boolean evictable) {
    String what = (evictable ? "label pod " : "unlabel pod ") + namespace + "/" + name;
    for (int attempt = 1; ; attempt++) {
      Pod p = KubeCalls.call(what, () -> client.pods().inNamespace(namespace).withName(name).get());
      if (p == null || (uid != null && !uid.equals(p.getMetadata().getUid()))) {
        return;
      }
      Map<String, String> labels = p.getMetadata().getLabels();
      String now = labels == null ? null : labels.get(PodLabels.EVICTABLE);
      if (evictable ? PodLabels.EVICTABLE_VALUE.equals(now) : now == null) {
        return;
      }
      String patch = patch(p.getMetadata().getUid(), labels == null, evictable, now);
      try {
        client
            .pods()
            .inNamespace(namespace)
            .resource(KubeRefs.pod(namespace, name))
            .patch(PatchContext.of(PatchType.JSON), patch);
        log.info(
            "{}: {}={}", what, PodLabels.EVICTABLE, evictable ? PodLabels.EVICTABLE_VALUE : "-");
        return;
      } catch (KubernetesClientException e) {
        if (KubeCalls.is(e, 404)) {
          return;
        }
        boolean changed = KubeCalls.is(e, 409) || KubeCalls.is(e, 422);
        if (!changed || attempt >= KubeCalls.MAX_CONFLICT_ATTEMPTS) {
          throw KubeCalls.translate(what, e);
        }
      }
    }
  }

  private static String patch(String uid, boolean noLabels, boolean evictable, String now) {
    StringBuilder b = new StringBuilder("[{\"op\":\"test\",\"path\":\"/metadata/uid\",\"value\":");
    b.append(quote(uid)).append("},");
    if (evictable) {
      if (noLabels) {
        b.append("{\"op\":\"add\",\"path\":\"/metadata/labels\",\"value\":{")
            .append(quote(PodLabels.EVICTABLE))
            .append(':')
            .append(quote(PodLabels.EVICTABLE_VALUE))
            .append("}}");
      } else {
        b.append("{\"op\":\"add\",\"path\":\"")
            .append(POINTER)
            .append("\",\"value\":")
            .append(quote(PodLabels.EVICTABLE_VALUE))
            .append('}');
      }
    } else {
      b.append("{\"op\":\"test\",\"path\":\"")
          .append(POINTER)
          .append("\",\"value\":")
          .append(quote(now))
          .append("},{\"op\":\"remove\",\"path\":\"")
          .append(POINTER)
          .append("\"}");
    }
    return b.append(']').toString();
  }

  private static String quote(String s) {
    return com.fasterxml.jackson.databind.node.TextNode.valueOf(s).toString();
  }
}
