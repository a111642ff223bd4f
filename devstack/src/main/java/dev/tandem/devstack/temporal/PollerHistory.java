package dev.tandem.devstack.temporal;

import com.google.protobuf.Timestamp;
import io.temporal.api.enums.v1.TaskQueueType;
import io.temporal.api.taskqueue.v1.PollerInfo;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Who polled which task queue, and when last, as a real Temporal server's matching service keeps
 * it: per task queue and type, per poller identity, the time of its last access (a poll's start and
 * its end both count). A poller stays listed for {@link #TTL} after its last access (the server's
 * {@code matching.PollerHistoryTTL} default), so a worker that died a minute ago is still listed
 * with the time of its last poll; at most {@link #MAX_PER_QUEUE} identities are kept per queue (the
 * oldest go first).
 */
final class PollerHistory {
  static final Duration TTL = Duration.ofMinutes(5);
  static final int MAX_PER_QUEUE = 1000;

  record Queue(String namespace, String name, TaskQueueType type) {}

  private final Clock clock;
  private final Map<Queue, LinkedHashMap<String, Instant>> queues = new HashMap<>();

  PollerHistory(Clock clock) {
    this.clock = clock;
  }

  /** Records an access by {@code identity} now; an empty identity is not recorded (as upstream). */
  synchronized void touch(Queue queue, String identity) {
    if (identity == null || identity.isEmpty()) {
      return;
    }
    LinkedHashMap<String, Instant> seen = queues.computeIfAbsent(queue, q -> new LinkedHashMap<>());
    seen.remove(identity); // re-inserted last: the map stays ordered by last access
    seen.put(identity, clock.instant());
    while (seen.size() > MAX_PER_QUEUE) {
      Iterator<String> oldest = seen.keySet().iterator();
      oldest.next();
      oldest.remove();
    }
  }

  /** The pollers seen within {@link #TTL}, most recent first. */
  synchronized List<PollerInfo> pollers(Queue queue) {
    LinkedHashMap<String, Instant> seen = queues.get(queue);
    if (seen == null) {
      return List.of();
    }
    Instant cutoff = clock.instant().minus(TTL);
    seen.values().removeIf(t -> t.isBefore(cutoff));
    List<PollerInfo> out = new ArrayList<>();
    seen.entrySet().stream()
        .sorted(Map.Entry.<String, Instant>comparingByValue(Comparator.reverseOrder()))
        .forEach(
            e ->
                out.add(
                    PollerInfo.newBuilder()
                        .setIdentity(e.getKey())
                        .setLastAccessTime(timestamp(e.getValue()))
                        .build()));
    return out;
  }

  private static Timestamp timestamp(Instant t) {
    return Timestamp.newBuilder().setSeconds(t.getEpochSecond()).setNanos(t.getNano()).build();
  }
}
