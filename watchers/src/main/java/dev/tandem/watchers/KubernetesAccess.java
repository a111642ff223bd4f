package dev.tandem.watchers;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the Kubernetes API lets this replica in, checked on every replica, leader or not: every
 * replica runs activities that call Kubernetes with the same credentials, so a replica whose calls
 * are refused (401: its credentials; 403: its rights) must not say it is ready. Runs the {@link
 * KubernetesProbe} every interval for as long as the process runs, keeps the last outcome for
 * {@code /readyz} and the leader's cluster health reports, and sets {@code tandem_kubernetes_up}.
 */
public final class KubernetesAccess implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KubernetesAccess.class);

  private final KubernetesProbe probe;
  private final Duration interval;
  private final WatcherMetrics metrics;
  private final ScheduledExecutorService timer =
      DaemonThreads.scheduler("tandem-kubernetes-access");
  private final AtomicBoolean started = new AtomicBoolean();
  private volatile KubernetesProbe.Outcome latest;

  public KubernetesAccess(KubernetesProbe probe, Duration interval, WatcherMetrics metrics) {
    this.probe = probe;
    this.interval = interval;
    this.metrics = metrics;
  }

  /** Starts checking (once; later calls do nothing). */
  public void start() {
    if (started.compareAndSet(false, true)) {
      timer.scheduleWithFixedDelay(this::checkOnce, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  void checkOnce() {
    try {
      KubernetesProbe.Outcome o = probe.check();
      KubernetesProbe.Outcome before = latest;
      latest = o;
      metrics.kubernetesUp(o.ok());
      if (o.refused() && (before == null || !before.refused())) {
        log.warn("the Kubernetes API refuses this replica's calls: {}", o.problem());
      } else if (!o.refused() && before != null && before.refused()) {
        log.info("the Kubernetes API lets this replica in again");
      }
    } catch (RuntimeException e) {
      log.warn("Kubernetes access check: {}", e.toString());
    }
  }

  /** The last outcome, or null before the first check. */
  public KubernetesProbe.Outcome latest() {
    return latest;
  }

  /** Null unless the API server refused the last check (401 or 403); then what it answered. */
  public String refused() {
    KubernetesProbe.Outcome o = latest;
    return o != null && o.refused() ? o.problem() : null;
  }

  @Override
  public void close() {
    timer.shutdownNow();
    probe.close();
  }
}
