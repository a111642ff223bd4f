package dev.tandem.cli;

import dev.tandem.workflows.Names;
import io.temporal.api.taskqueue.v1.PollerInfo;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;

/**
 * What Temporal says about the workers polling Tandem's task queue ({@code DescribeTaskQueue},
 * workflow tasks), and the messages built from it.
 *
 * <p>A Temporal server lists a poller for 5 minutes after its last access (a poll's start or end),
 * so a listed poller is not necessarily alive. A live worker renews its access at least once per
 * long poll (about a minute), so a poller older than {@link #RECENT} is counted as gone.
 *
 * @param state what the listing means
 * @param pollers the listed pollers, most recent first
 * @param now when the listing was taken (by this machine's clock)
 */
record WorkerPresence(State state, List<PollerInfo> pollers, Instant now) {
  static final Duration RECENT = Duration.ofSeconds(90);
  static final String QUEUE = Names.TASK_QUEUE;

  enum State {
    /** A worker polled within {@link #RECENT}. */
    POLLING,
    /** No worker polled within {@link #RECENT} (none, or only old entries). */
    GONE,
    /** The server cannot list pollers (UNIMPLEMENTED, or not allowed to): only a query can tell. */
    UNKNOWN
  }

  static WorkerPresence of(List<PollerInfo> pollers, Instant now) {
    List<PollerInfo> sorted =
        pollers.stream().sorted(Comparator.comparing(p -> -lastAccess(p).toEpochMilli())).toList();
    boolean recent =
        !sorted.isEmpty() && age(lastAccess(sorted.get(0)), now).compareTo(RECENT) <= 0;
    return new WorkerPresence(recent ? State.POLLING : State.GONE, sorted, now);
  }

  static WorkerPresence unknown(Instant now) {
    return new WorkerPresence(State.UNKNOWN, List.of(), now);
  }

  /**
   * {@code no Tandem worker is polling task queue "tandem" at ADDRESS (last poll: ...): start one
   * ...}.
   */
  String noWorker(String address) {
    String last =
        state == State.UNKNOWN
            ? "not listed by this server"
            : pollers.isEmpty()
                ? "none in the last 5 minutes"
                : ago(lastAccess(pollers.get(0))) + " by " + pollers.get(0).getIdentity();
    return "no Tandem worker is polling task queue \""
        + QUEUE
        + "\" at "
        + address
        + " (last poll: "
        + last
        + "): start one (tandem worker, or tandem dev), or check the worker Deployment";
  }

  /** Why a call to {@code workflowId} got no answer within {@code timeout}. */
  String noAnswer(String address, String workflowId, Duration timeout) {
    String within = "no answer within " + Durations.format(timeout) + " for " + workflowId;
    return switch (state) {
      case POLLING ->
          within
              + " from the Tandem worker polling task queue \""
              + QUEUE
              + "\" at "
              + address
              + " ("
              + summary()
              + "): it may be stuck or overloaded; check its log and /readyz, "
              + "or retry with a longer --query-timeout";
      case GONE -> noWorker(address);
      case UNKNOWN ->
          within
              + " from Temporal at "
              + address
              + ", which cannot list the pollers of task queue \""
              + QUEUE
              + "\": is a Tandem worker running (tandem worker, or tandem dev)? "
              + "A busy worker may need a longer --query-timeout";
    };
  }

  /** {@code id (last poll 3s ago), ...}: at most three. */
  String summary() {
    String s =
        pollers.stream()
            .limit(3)
            .map(p -> p.getIdentity() + ", last poll " + ago(lastAccess(p)))
            .collect(Collectors.joining("; "));
    return pollers.size() > 3 ? s + "; and " + (pollers.size() - 3) + " more" : s;
  }

  private String ago(Instant t) {
    return Durations.format(Duration.ofSeconds(age(t, now).toSeconds())) + " ago";
  }

  private static Duration age(Instant t, Instant now) {
    Duration d = Duration.between(t, now);
    return d.isNegative() ? Duration.ZERO : d; // the server's clock may be ahead of ours
  }

  private static Instant lastAccess(PollerInfo p) {
    return Instant.ofEpochSecond(
        p.getLastAccessTime().getSeconds(), p.getLastAccessTime().getNanos());
  }
}
