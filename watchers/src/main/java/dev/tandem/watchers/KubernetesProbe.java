package dev.tandem.watchers;

import dev.tandem.k8s.NodeSetResources;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Whether the Kubernetes API answers what the watchers need: a list of NodeSets limited to one
 * item. Unlike {@code /version}, which an API server answers from memory, a list goes through
 * authentication, authorization and storage, and it is still one small request. A call that has not
 * answered within {@code timeout} counts as a failure; no second call starts while it hangs.
 */
public final class KubernetesProbe implements AutoCloseable {
  private final KubernetesClient client;
  private final Duration timeout;
  private final ExecutorService calls =
      Executors.newSingleThreadExecutor(DaemonThreads.named("tandem-kubernetes-probe"));
  private Future<?> inFlight;
  private long inFlightSince;

  public KubernetesProbe(KubernetesClient client, Duration timeout) {
    this.client = client;
    this.timeout = timeout;
  }

  public Duration timeout() {
    return timeout;
  }

  /** Null when the API answered; otherwise what failed. Called from one thread at a time. */
  public synchronized String check() {
    if (inFlight != null && !inFlight.isDone()) {
      long waited = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - inFlightSince);
      return "the Kubernetes API has not answered for " + waited + "s";
    }
    inFlightSince = System.nanoTime();
    inFlight =
        calls.submit(
            () ->
                NodeSetResources.generic(client)
                    .inAnyNamespace()
                    .list(new ListOptionsBuilder().withLimit(1L).build()));
    try {
      inFlight.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      return null;
    } catch (TimeoutException e) {
      return "the Kubernetes API did not answer within " + timeout.toMillis() + "ms";
    } catch (ExecutionException e) {
      return describe(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  static String describe(Throwable t) {
    if (t instanceof KubernetesClientException k && k.getCode() > 0) {
      String msg = k.getStatus() != null ? k.getStatus().getMessage() : null;
      return "the Kubernetes API answered "
          + k.getCode()
          + (msg == null || msg.isBlank() ? "" : ": " + msg);
    }
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return "cannot reach the Kubernetes API: " + root;
  }

  @Override
  public void close() {
    calls.shutdownNow();
  }
}
