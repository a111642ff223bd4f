package dev.tandem.devstack.faults;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * Faults that {@link KubeApiProxy} injects into requests on their way to the real API server: an
 * error answer (the request never reaches the server) or a delay (the request is performed and its
 * answer held back). Faults apply to watch requests too (a refused watch is not opened); watches
 * already open are untouched unless {@link #dropWatches()} closes them. The latest matching fault
 * wins. Thread-safe.
 */
public final class ApiFaults {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * A request as faults see it, parsed from its path.
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

    /**
     * Parses {@code /api/v1/...} and {@code /apis/<group>/<version>/...} paths: {@code
     * [namespaces/<ns>/]<resource>[/<name>[/<subresource>]]}, and {@code watch=true} in the query.
     */
    public static Request of(String method, String pathAndQuery, String userAgent) {
      int q = pathAndQuery.indexOf('?');
      String path = q < 0 ? pathAndQuery : pathAndQuery.substring(0, q);
      String query = q < 0 ? "" : pathAndQuery.substring(q + 1);
      boolean watch = ("&" + query + "&").matches(".*&watch=(true|1)&.*");
      List<String> parts = List.of(path.replaceAll("^/+|/+$", "").split("/+"));
      String group;
      int rest;
      if (parts.size() >= 2 && parts.get(0).equals("api")) {
        group = "";
        rest = 2;
      } else if (parts.size() >= 3 && parts.get(0).equals("apis")) {
        group = parts.get(1);
        rest = 3;
      } else {
        return new Request(method, path, null, null, null, null, null, null, watch, userAgent);
      }
      String version = parts.get(rest - 1);
      List<String> r = parts.subList(rest, parts.size());
      String namespace = null;
      if (r.size() >= 3 && r.get(0).equals("namespaces")) {
        namespace = r.get(1);
        r = r.subList(2, r.size());
      }
      return new Request(
          method,
          path,
          group,
          version,
          namespace,
          r.isEmpty() ? null : r.get(0),
          r.size() > 1 ? r.get(1) : null,
          r.size() > 2 ? r.get(2) : null,
          watch,
          userAgent);
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

    /** The delay of a delay fault; null for an error fault. */
    Duration delay() {
      return delay;
    }

    /** The answer of an error fault: a {@code Status} as the API server writes it. */
    String statusJson(Request r) {
      return ApiFaults.statusJson(status, r);
    }

    int status() {
      return status;
    }
  }

  private static final Map<Integer, String> REASONS =
      Map.ofEntries(
          Map.entry(400, "BadRequest"),
          Map.entry(401, "Unauthorized"),
          Map.entry(403, "Forbidden"),
          Map.entry(404, "NotFound"),
          Map.entry(409, "Conflict"),
          Map.entry(410, "Expired"),
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

  /** Requests answered with an injected error or delay so far. */
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
        found = f;
      }
    }
    if (found != null) {
      found.hits.incrementAndGet();
      injected.incrementAndGet();
    }
    return found;
  }

  static String statusJson(int code, Request r) {
    String reason = REASONS.getOrDefault(code, code >= 500 ? "InternalError" : "BadRequest");
    String message =
        switch (code) {
          case 409 ->
              r.name() != null && r.resource() != null
                  ? "Operation cannot be fulfilled on "
                      + r.qualifiedResource()
                      + " \""
                      + r.name()
                      + "\": the object has been modified; please apply your changes to the latest"
                      + " version and try again"
                  : "Operation cannot be fulfilled: conflict";
          case 429 -> "Too many requests, please try again later.";
          case 503 -> "the server is currently unable to handle the request";
          case 504 -> "the server was unable to return a response in the time allotted";
          default -> reason.toLowerCase(Locale.ROOT);
        };
    ObjectNode s = JSON.createObjectNode();
    s.put("kind", "Status").put("apiVersion", "v1");
    s.putObject("metadata");
    s.put("status", "Failure")
        .put("message", message + " [fault injected by the test proxy]")
        .put("reason", reason)
        .put("code", code);
    if (r.resource() != null) {
      ObjectNode d = s.putObject("details");
      if (r.name() != null) {
        d.put("name", r.name());
      }
      if (r.group() != null && !r.group().isEmpty()) {
        d.put("group", r.group());
      }
      d.put("kind", r.resource());
    }
    return s.toString();
  }
}
