package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.mockwebserver.http.MockResponse;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * Faults the local API injects for a while, so tests can see what Tandem does when the Kubernetes
 * API answers 5xx or 409 or stops answering in time (see {@code docs/local-api.md}).
 *
 * <p>A fault applies to the requests its predicate matches until its time is up, {@link
 * Fault#cancel()} or {@link #clear()}. The most recently added fault that matches wins. An error
 * fault answers with the {@code Status} object a real API server sends for that code, and the
 * request is not performed; a delay fault performs it and holds the answer back. Faults apply to
 * watch requests too (a refused watch is not opened); watches already open are untouched unless
 * {@link #dropWatches()} closes them. Thread-safe.
 */
public final class ApiFaults {
  /**
   * A request as faults see it.
   *
   * @param group {@code ""} for the core group; null outside {@code /api} and {@code /apis}
   * @param resource e.g. {@code pods}; null for discovery and other paths
   * @param userAgent the client's User-Agent (tell two clients apart by it)
   */
  public record Request(
      String method,
      String path,
      String group,
      String version,
      String namespace,
      String resource,
      String name,
      String subresource,
      boolean watch,
      String userAgent) {

    public boolean isWrite() {
      return List.of("POST", "PUT", "PATCH", "DELETE").contains(method);
    }

    /** {@code pods}, or {@code leases.coordination.k8s.io}, as in API server messages. */
    String qualifiedResource() {
      return group == null || group.isEmpty() ? resource : resource + "." + group;
    }
  }

  /** Every request. */
  public static Predicate<Request> all() {
    return r -> true;
  }

  /** Writes (POST, PUT, PATCH, DELETE) to a resource, e.g. {@code pods}. */
  public static Predicate<Request> writesTo(String resource) {
    return r -> r.isWrite() && resource.equals(r.resource());
  }

  /** Any request to a resource (its subresources included), e.g. {@code leases}. */
  public static Predicate<Request> resource(String resource) {
    return r -> resource.equals(r.resource());
  }

  /** Requests from a client whose User-Agent contains {@code part}. */
  public static Predicate<Request> userAgent(String part) {
    return r -> r.userAgent() != null && r.userAgent().contains(part);
  }

  /** One injected fault. */
  public final class Fault {
    private final Predicate<Request> which;
    private final int status;
    private final Duration delay;
    private final long untilNanos;
    private final AtomicLong hits = new AtomicLong();

    private Fault(Predicate<Request> which, int status, Duration delay, Duration lasting) {
      if (lasting.isNegative() || lasting.isZero()) {
        throw new IllegalArgumentException("a fault must last a positive time, got " + lasting);
      }
      this.which = which;
      this.status = status;
      this.delay = delay;
      this.untilNanos = System.nanoTime() + lasting.toNanos();
    }

    boolean active() {
      return System.nanoTime() < untilNanos;
    }

    /** Requests this fault has answered (or delayed) so far. */
    public long hits() {
      return hits.get();
    }

    /** Ends this fault now. */
    public void cancel() {
      faults.remove(this);
    }
  }

  private static final Map<Integer, String> REASONS =
      Map.ofEntries(
          Map.entry(400, "BadRequest"),
          Map.entry(401, "Unauthorized"),
          Map.entry(403, "Forbidden"),
          Map.entry(404, "NotFound"),
          Map.entry(405, "MethodNotAllowed"),
          Map.entry(406, "NotAcceptable"),
          Map.entry(409, "Conflict"),
          Map.entry(410, "Expired"),
          Map.entry(415, "UnsupportedMediaType"),
          Map.entry(422, "Invalid"),
          Map.entry(429, "TooManyRequests"),
          Map.entry(500, "InternalError"),
          Map.entry(503, "ServiceUnavailable"),
          Map.entry(504, "Timeout"));

  private final List<Fault> faults = new CopyOnWriteArrayList<>();
  private final AtomicLong injected = new AtomicLong();
  private final Runnable dropWatches;

  ApiFaults(Runnable dropWatches) {
    this.dropWatches = dropWatches;
  }

  /** Every request fails with {@code status} (400-599) for {@code lasting}. */
  public Fault failAll(int status, Duration lasting) {
    return failMatching(all(), status, lasting);
  }

  /** Matching requests fail with {@code status} (400-599) for {@code lasting}. */
  public Fault failMatching(Predicate<Request> which, int status, Duration lasting) {
    if (status < 400 || status > 599) {
      throw new IllegalArgumentException("a fault answers 400-599, got " + status);
    }
    Fault f = new Fault(which, status, null, lasting);
    faults.add(f);
    return f;
  }

  /** Matching requests are performed but answered only after {@code delay}, for {@code lasting}. */
  public Fault delayMatching(Predicate<Request> which, Duration delay, Duration lasting) {
    if (delay.isNegative() || delay.isZero()) {
      throw new IllegalArgumentException("a delay must be positive, got " + delay);
    }
    Fault f = new Fault(which, 0, delay, lasting);
    faults.add(f);
    return f;
  }

  /** Ends every fault. */
  public void clear() {
    faults.clear();
  }

  /** Closes every open watch now (clients reconnect, through the faults in force). */
  public void dropWatches() {
    dropWatches.run();
  }

  /** Requests answered with an injected error or delay since the server started. */
  public long injected() {
    return injected.get();
  }

  /** The fault for this request, or null; expired faults are dropped on the way. */
  Fault match(Request r) {
    Fault found = null;
    for (Fault f : faults) {
      if (!f.active()) {
        faults.remove(f);
      } else if (f.which.test(r)) {
        found = f; // the latest added wins
      }
    }
    if (found != null) {
      found.hits.incrementAndGet();
      injected.incrementAndGet();
    }
    return found;
  }

  /** The answer of an error fault. */
  static MockResponse errorResponse(Fault f, Request r) {
    return Responses.json(f.status, status(f.status, r));
  }

  static Duration delayOf(Fault f) {
    return f.delay;
  }

  static ObjectNode status(int code, Request r) {
    String reason = REASONS.getOrDefault(code, code >= 500 ? "InternalError" : "BadRequest");
    String message =
        switch (code) {
          case 409 ->
              r.name() != null && r.resource() != null
                  ? "Operation cannot be fulfilled on "
                      + r.qualifiedResource()
                      + " "
                      + Json.quote(r.name())
                      + ": the object has been modified; please apply your changes to the latest"
                      + " version and try again"
                  : "Operation cannot be fulfilled: conflict";
          case 429 -> "Too many requests, please try again later.";
          case 503 -> "the server is currently unable to handle the request";
          case 504 -> "the server was unable to return a response in the time allotted";
          case 500 -> "Internal error occurred: injected fault";
          default -> reason.toLowerCase(Locale.ROOT) + " (injected fault)";
        };
    ObjectNode s =
        new ApiException(
                code,
                reason,
                message + " [fault injected by the local API]",
                r.name(),
                r.group() == null || r.group().isEmpty() ? null : r.group(),
                r.resource(),
                null)
            .toStatus();
    return s;
  }
}
