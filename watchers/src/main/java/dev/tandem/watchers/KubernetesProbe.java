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

  /**
   * What one probe found.
   *
   * @param problem null when the API answered; otherwise what failed
   * @param code the HTTP status of a refusal or an error answer, 0 when there was none
   */
  public record Outcome(String problem, int code) {
    static final Outcome OK = new Outcome(null, 0);

    public boolean ok() {
      return problem == null;
    }

    /** The API server refused this client's credentials (401) or its rights (403). */
    public boolean refused() {
      return code == 401 || code == 403;
    }
  }

  /** Calls the API once (or finds the last call still hanging). One thread at a time. */
  public synchronized Outcome check() {
    if (inFlight != null && !inFlight.isDone()) {
      long waited = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - inFlightSince);
      return new Outcome("the Kubernetes API has not answered for " + waited + "s", 0);
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
      return Outcome.OK;
    } catch (TimeoutException e) {
      return new Outcome(
          "the Kubernetes API did not answer within " + timeout.toMillis() + "ms", 0);
    } catch (ExecutionException e) {
      int code = e.getCause() instanceof KubernetesClientException k ? Math.max(0, k.getCode()) : 0;
      return new Outcome(describe(e.getCause()), code);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Outcome("interrupted", 0);
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
