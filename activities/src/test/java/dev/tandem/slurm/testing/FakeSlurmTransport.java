package dev.tandem.slurm.testing;

import dev.tandem.slurm.SlurmTransport;
import dev.tandem.slurm.SlurmUnavailableException;
import dev.tandem.slurm.spec.SpecOperations;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A scripted {@link SlurmTransport} for adapter tests: answers are queued per {@code METHOD path}
 * (query excluded) and consumed in order; every request is recorded. With {@link
 * #checkedAgainst(SpecOperations)} each request is also checked against the OpenAPI spec (known
 * operation, declared query parameters, body schema, no unknown or deprecated keys), and a problem
 * fails the test at once with an {@link AssertionError}, which adapters do not catch.
 *
 * <p>An unscripted request also fails with an {@link AssertionError}: an adapter that sends
 * something the test did not expect is a bug to see, not a 404 to map.
 */
public final class FakeSlurmTransport implements SlurmTransport {
  private final Map<String, Deque<Response>> script = new LinkedHashMap<>();
  private final List<Request> requests = new ArrayList<>();
  private SpecOperations spec;
  private boolean closed;

  /** Checks every request against {@code spec} before answering it. */
  public FakeSlurmTransport checkedAgainst(SpecOperations spec) {
    this.spec = spec;
    return this;
  }

  /** Queues an answer for {@code method path}. */
  public FakeSlurmTransport on(String method, String path, int status, String body) {
    script
        .computeIfAbsent(method + " " + path, k -> new ArrayDeque<>())
        .add(new Response(status, body));
    return this;
  }

  /** Queues an answer whose body is a test resource, e.g. {@code /slurm/v0.0.44/nodes.json}. */
  public FakeSlurmTransport onResource(String method, String path, int status, String resource) {
    return on(method, path, status, resource(resource));
  }

  /** Queues a transport failure (connection refused, timeout) for {@code method path}. */
  public FakeSlurmTransport failing(String method, String path) {
    return on(method, path, -1, null);
  }

  @Override
  public synchronized Response send(Request request) {
    requests.add(request);
    if (spec != null) {
      List<String> problems = spec.requestProblems(request);
      if (!problems.isEmpty()) {
        throw new AssertionError(
            "request does not match " + spec.spec().version() + ": " + problems);
      }
    }
    Deque<Response> q = script.get(request.method() + " " + request.path());
    if (q == null || q.isEmpty()) {
      throw new AssertionError("unscripted request " + request.method() + " " + request.path());
    }
    Response r = q.poll();
    if (r.status() < 0) {
      throw new SlurmUnavailableException("fake transport: connection refused");
    }
    return r;
  }

  /** Every request sent so far, in order. */
  public synchronized List<Request> requests() {
    return List.copyOf(requests);
  }

  /** The last request sent; fails if there was none. */
  public synchronized Request last() {
    if (requests.isEmpty()) {
      throw new AssertionError("no request was sent");
    }
    return requests.get(requests.size() - 1);
  }

  /** Whether every scripted answer was consumed. */
  public synchronized boolean drained() {
    return script.values().stream().allMatch(Deque::isEmpty);
  }

  public synchronized boolean closed() {
    return closed;
  }

  @Override
  public synchronized void close() {
    closed = true;
  }

  /** A UTF-8 test resource as a string; fails clearly when it is missing. */
  public static String resource(String path) {
    try (InputStream in = FakeSlurmTransport.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalArgumentException("no test resource " + path);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
