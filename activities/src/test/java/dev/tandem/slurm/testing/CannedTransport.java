package dev.tandem.slurm.testing;

import dev.tandem.slurm.SlurmTransport;
import dev.tandem.slurm.SlurmUnavailableException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A {@link SlurmTransport} answering from canned responses, for unit tests of adapters. Requests
 * are keyed {@code "GET /slurm/v0.0.38/nodes?update_time=5"} (query sorted); several answers for
 * one key are given in order, the last one repeats. Unknown requests answer 404, as slurmrestd
 * does. Every request is recorded.
 */
public final class CannedTransport implements SlurmTransport {
  private final Map<String, Deque<Object>> answers = new HashMap<>();
  private final List<Request> requests = new ArrayList<>();

  /** Answers {@code key} with {@code status} and {@code body}. */
  public CannedTransport on(String key, int status, String body) {
    answers.computeIfAbsent(key, k -> new ArrayDeque<>()).add(new Response(status, body));
    return this;
  }

  /** Answers {@code key} with a transport failure (slurmrestd unreachable). */
  public CannedTransport failOn(String key, String message) {
    answers
        .computeIfAbsent(key, k -> new ArrayDeque<>())
        .add(new SlurmUnavailableException(message));
    return this;
  }

  public static String key(Request r) {
    StringBuilder sb = new StringBuilder(r.method()).append(' ').append(r.path());
    char sep = '?';
    for (Map.Entry<String, List<String>> e : new TreeMap<>(r.query()).entrySet()) {
      for (String v : e.getValue()) {
        sb.append(sep).append(e.getKey()).append('=').append(v);
        sep = '&';
      }
    }
    return sb.toString();
  }

  @Override
  public synchronized Response send(Request request) {
    requests.add(request);
    Deque<Object> q = answers.get(key(request));
    if (q == null || q.isEmpty()) {
      return new Response(404, "Unable find requested URL.");
    }
    Object a = q.size() > 1 ? q.poll() : q.peek();
    if (a instanceof RuntimeException e) {
      throw e;
    }
    return (Response) a;
  }

  public synchronized List<Request> requests() {
    return List.copyOf(requests);
  }

  /** A test resource as text, e.g. {@code resource("/v0038/nodes.json")}. */
  public static String resource(String path) {
    try (InputStream in = CannedTransport.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalArgumentException("no test resource " + path);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
