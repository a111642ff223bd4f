package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.function.Executable;

/** What {@link LeaderLoop} relies on: call and write times, and only API errors out of the lock. */
@ExtendWith(KubeNamespace.class)
class WatchedLeaseLockTest {
  static KubernetesClient client;

  private static LeaderElectionRecord held(String holder) {
    ZonedDateTime now = Instant.now().atZone(ZoneOffset.UTC);
    return new LeaderElectionRecord(holder, Duration.ofSeconds(15), now, now, 0);
  }

  /** An error that is not the API's would end fabric8's acquire loop for good. */
  @Test
  void anyOtherErrorBecomesAKubernetesClientException() {
    WatchedLeaseLock lock = new WatchedLeaseLock(client.getNamespace(), "broken", "a");
    assertWrapped("cannot read the lease: ", () -> lock.get(null));
    assertWrapped("cannot create the lease: ", () -> lock.create(null, held("a")));
    assertWrapped("cannot update the lease: ", () -> lock.update(null, held("a")));
    assertNull(lock.sinceLastWrite(), "no write succeeded");
    assertTrue(lock.quietFor().compareTo(Duration.ofSeconds(5)) < 0, "called just now");
  }

  private static void assertWrapped(String prefix, Executable call) {
    KubernetesClientException e = assertThrows(KubernetesClientException.class, call);
    assertTrue(e.getMessage().startsWith(prefix + "java.lang."), e.getMessage());
    assertNotNull(e.getCause());
  }

  /**
   * Creating the Lease is acquiring it; an update counts only when it makes this replica holder.
   */
  @Test
  void aWriteAsHolderCountsAndAnotherHoldersDoesNot() {
    WatchedLeaseLock a = new WatchedLeaseLock(client.getNamespace(), "lease", "a");
    a.create(client, held("a"));
    assertNotNull(a.sinceLastWrite());

    WatchedLeaseLock b = new WatchedLeaseLock(client.getNamespace(), "lease", "b");
    b.get(client); // fabric8 updates the Lease it last read
    b.update(client, held("a"));
    assertNull(b.sinceLastWrite());
    b.get(client);
    b.update(client, held("b"));
    assertNotNull(b.sinceLastWrite());
    assertEquals("b", b.get(client).getHolderIdentity());
  }
}
