package dev.tandem.watchers;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * One round of the {@link LeaderLoop}: one fabric8 {@code LeaderElector} (it can be started once)
 * with a fresh {@link WatchedLeaseLock}. The {@code leading} and {@code over} flags are guarded by
 * the loop.
 */
final class ElectionRound {
  final int id;
  final WatchedLeaseLock lock;
  volatile CompletableFuture<?> future;
  volatile String leader;
  boolean leading;
  boolean over;

  private final Watchers.Lease lease;

  ElectionRound(int id, Watchers.Lease lease) {
    this.id = id;
    this.lease = lease;
    this.lock = new WatchedLeaseLock(lease.namespace(), lease.name(), lease.identity());
  }

  /** Starts the elector; its future completes when a leader stops renewing. */
  CompletableFuture<?> start(
      KubernetesClient k8s,
      Runnable onStart,
      Runnable onStop,
      java.util.function.Consumer<String> onLeader) {
    CompletableFuture<?> f =
        k8s.leaderElector()
            .withConfig(
                new LeaderElectionConfigBuilder()
                    .withName("tandem-watchers")
                    .withLock(lock)
                    .withLeaseDuration(lease.duration())
                    .withRenewDeadline(lease.renewDeadline())
                    .withRetryPeriod(lease.retryPeriod())
                    .withReleaseOnCancel(true)
                    .withLeaderCallbacks(
                        new LeaderCallbacks(onStart::run, onStop::run, onLeader::accept))
                    .build())
            .build()
            .start();
    future = f;
    return f;
  }

  /** Whether another replica was last seen holding the lease. */
  boolean taken() {
    String l = leader;
    return l != null && !l.isEmpty() && !l.equals(lease.identity());
  }

  /**
   * What the watchdog concludes: null if all is well, else why the round must end. A leader that
   * has not written the lease for longer than the renew deadline is no leader any more (fabric8
   * would notice only after a hung call returns); an elector that made no call for longer than
   * lease duration + renew deadline is dead.
   */
  String verdict(boolean isLeading) {
    Duration sinceWrite = lock.sinceLastWrite();
    if (isLeading && sinceWrite != null && sinceWrite.compareTo(lease.renewDeadline()) > 0) {
      return "lease not renewed for " + sinceWrite.toMillis() + "ms";
    }
    Duration quiet = lock.quietFor();
    if (!isLeading && quiet.compareTo(lease.duration().plus(lease.renewDeadline())) > 0) {
      return "the elector made no call for " + quiet.toSeconds() + "s";
    }
    return null;
  }
}
