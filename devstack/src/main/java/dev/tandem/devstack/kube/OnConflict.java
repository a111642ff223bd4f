package dev.tandem.devstack.kube;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.function.Supplier;

/**
 * A read-modify-write ({@code edit}, {@code editStatus}) of an object others write too, retried on
 * 409 Conflict as client-go's {@code RetryOnConflict} does: on a real API server a Node is also
 * written by the node controllers, the kubelet's status and Tandem's watchers (their finalizer).
 */
public final class OnConflict {
  private static final int ATTEMPTS = 10;

  private OnConflict() {}

  /** Runs {@code update} (which must read the object afresh) until it does not conflict. */
  public static <T> T retry(Supplier<T> update) {
    for (int attempt = 1; ; attempt++) {
      try {
        return update.get();
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt >= ATTEMPTS) {
          throw e;
        }
        try {
          Thread.sleep(10L * attempt);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }
}
