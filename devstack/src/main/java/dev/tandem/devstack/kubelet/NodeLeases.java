package dev.tandem.devstack.kubelet;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node heartbeats a kubelet sends: the Lease {@code kube-node-lease/<node>} of each of its
 * nodes, renewed at a fixed interval (the local kubelet: every {@link #RENEW}). The node lifecycle
 * controller takes a node whose Lease is not renewed within its grace period for lost (Ready
 * Unknown, the unreachable taints, and after their toleration the eviction of its pods), so the
 * renewals run on a thread of their own: a busy sync loop must not make the nodes look dead.
 */
public final class NodeLeases implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(NodeLeases.class);

  /** How often each Lease is renewed (a kubelet's default is a quarter of the duration, 10 s). */
  public static final Duration RENEW = Duration.ofSeconds(5);

  /** The Lease's duration, as a kubelet sets it. */
  static final int DURATION_SECONDS = 40;

  static final String NAMESPACE = "kube-node-lease";

  private final KubernetesClient client;
  private final List<String> nodes;
  private final Duration every;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "local-kubelet-leases");
            t.setDaemon(true);
            return t;
          });

  public NodeLeases(KubernetesClient client, List<String> nodes, Duration every) {
    this.client = client;
    this.nodes = List.copyOf(nodes);
    this.every = every;
  }

  public void start() {
    timer.scheduleWithFixedDelay(this::renewAll, 0, every.toMillis(), TimeUnit.MILLISECONDS);
  }

  void renewAll() {
    for (String node : nodes) {
      try {
        renew(node);
      } catch (KubernetesClientException e) {
        log.warn("node {}: Lease not renewed: {}", node, e.getMessage());
      }
    }
  }

  private void renew(String node) {
    ZonedDateTime now = ZonedDateTime.now();
    var leases = client.leases().inNamespace(NAMESPACE);
    Lease have = leases.withName(node).get();
    if (have == null) {
      leases
          .resource(
              new LeaseBuilder()
                  .withNewMetadata()
                  .withName(node)
                  .withNamespace(NAMESPACE)
                  .endMetadata()
                  .withNewSpec()
                  .withHolderIdentity(node)
                  .withLeaseDurationSeconds(DURATION_SECONDS)
                  .withRenewTime(now)
                  .endSpec()
                  .build())
          .create();
      return;
    }
    // Written with the read resourceVersion: a conflict waits for the next round.
    leases
        .resource(new LeaseBuilder(have).editSpec().withRenewTime(now).endSpec().build())
        .update();
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
