package dev.tandem.watchers;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.function.Supplier;

/**
 * fabric8's Lease lock (7.8.0) with two changes the {@link LeaderLoop} relies on.
 *
 * <ul>
 *   <li>It records when it was last called and when it last wrote the Lease successfully: the
 *       loop's watchdog sees a hung or dead elector, and a leader that has not renewed in time.
 *   <li>A Lease with missing fields reads as an expired one, as client-go reads it (missing numbers
 *       are 0, missing times the zero time). fabric8 would throw a {@code NullPointerException}
 *       from its acquire loop, which ends that loop for good without completing the elector's
 *       future: every replica would silently stop competing. Anything else that is not a {@link
 *       KubernetesClientException} is turned into one, so the elector logs and retries it.
 * </ul>
 */
final class WatchedLeaseLock extends LeaseLock {
  private static final ZonedDateTime ZERO = Instant.EPOCH.atZone(ZoneOffset.UTC);

  private volatile long lastCallNanos = System.nanoTime();
  private volatile long lastWriteNanos;
  private volatile boolean written;

  WatchedLeaseLock(String namespace, String name, String identity) {
    super(namespace, name, identity);
  }

  @Override
  public LeaderElectionRecord get(KubernetesClient client) {
    return call("read", () -> super.get(client));
  }

  @Override
  public void create(KubernetesClient client, LeaderElectionRecord record) {
    call(
        "create",
        () -> {
          super.create(client, record);
          wrote();
          return null;
        });
  }

  @Override
  public void update(KubernetesClient client, LeaderElectionRecord record) {
    call(
        "update",
        () -> {
          super.update(client, record);
          if (identity().equals(record.getHolderIdentity())) {
            wrote();
          }
          return null;
        });
  }

  /**
   * One call of the elector: its start and end are when it was last called, and whatever it throws
   * reaches the elector as a {@link KubernetesClientException} (see the class comment).
   */
  private <T> T call(String verb, Supplier<T> call) {
    lastCallNanos = System.nanoTime();
    try {
      return call.get();
    } catch (KubernetesClientException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new KubernetesClientException("cannot " + verb + " the lease: " + e, e);
    } finally {
      lastCallNanos = System.nanoTime();
    }
  }

  private void wrote() {
    lastWriteNanos = System.nanoTime();
    written = true;
  }

  @Override
  protected LeaderElectionRecord toRecord(Lease lease) {
    LeaseSpec spec = lease.getSpec() == null ? new LeaseSpec() : lease.getSpec();
    return new LeaderElectionRecord(
        spec.getHolderIdentity(),
        Duration.ofSeconds(
            spec.getLeaseDurationSeconds() == null ? 0 : spec.getLeaseDurationSeconds()),
        spec.getAcquireTime() == null ? ZERO : spec.getAcquireTime(),
        spec.getRenewTime() == null ? ZERO : spec.getRenewTime(),
        spec.getLeaseTransitions() == null ? 0 : spec.getLeaseTransitions());
  }

  /** Time since the elector last called this lock (start or end of a call). */
  Duration quietFor() {
    return Duration.ofNanos(System.nanoTime() - lastCallNanos);
  }

  /** Time since this replica last wrote itself as holder; null if it never did. */
  Duration sinceLastWrite() {
    return written ? Duration.ofNanos(System.nanoTime() - lastWriteNanos) : null;
  }
}
