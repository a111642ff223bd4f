package dev.tandem.watchers;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore;
import io.fabric8.kubernetes.client.informers.cache.Cache;

/**
 * An informer cache that keeps objects without {@code metadata.managedFields}, as
 * controller-runtime caches do by default and kube-controller-manager's informers do with a
 * transform: no watcher reads them, and on a pod they are the largest part of the object (a nested
 * map per field each writer owns: the kubelet's status alone is dozens). A worker caches every
 * slurmd pod and Kubernetes node, so at thousands of nodes they would be most of its live heap
 * (docs/benchmarks.md, "Worker memory at 5,000 nodes").
 *
 * <p>The object is trimmed in place as it is stored, so the event handlers, which get the same
 * object, see it without them too.
 */
final class LeanItemStore<T extends HasMetadata> extends BasicItemStore<T> {
  LeanItemStore() {
    super(Cache::metaNamespaceKeyFunc);
  }

  @Override
  public T put(String key, T obj) {
    if (obj != null && obj.getMetadata() != null) {
      obj.getMetadata().setManagedFields(null);
    }
    return super.put(key, obj);
  }
}
