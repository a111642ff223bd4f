package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * {@code GET pods/{name}/log}, which a real API server proxies to the pod's kubelet. The local
 * kubelet writes each container's output to {@code <logDir>/<ns>_<pod>_<container>.log} (its {@code
 * PodWorker}), so this reads that file ({@code kubectl logs}, {@code kubectl logs -f}).
 *
 * <p>How a request is answered, in the API server's and the kubelet's words:
 *
 * <ol>
 *   <li>The pod must exist (404), and have a node ({@code 400 pod P does not have a host
 *       assigned}).
 *   <li>The container is the query's {@code container}, else the pod's only one; with several and
 *       none named, {@code 400 a container name must be specified for pod P, choose one of: [...]};
 *       an unknown name, {@code 400 container C is not valid for pod P}.
 *   <li>No file: a container still waiting is {@code 400 container "C" in pod "P" is waiting to
 *       start: REASON}; one that runs without a process (the local kubelet starts processes for
 *       slurmd pods only) has printed nothing: an empty answer.
 *   <li>{@code tailLines} keeps the last N lines, then {@code limitBytes} the first N bytes; {@code
 *       timestamps}, {@code sinceSeconds} and {@code sinceTime} are not applied (the file has no
 *       times). {@code previous=true} is refused as a kubelet refuses it for a container that never
 *       restarted: restarts append to the same file here.
 *   <li>{@code follow=true} streams ({@link StreamingWebServer}): what is there, then what the
 *       container writes, read every {@link #FOLLOW_POLL_MS} ms, until the client hangs up, the pod
 *       is gone or its container has stopped, or {@code limitBytes} are sent.
 * </ol>
 */
final class PodLogs {
  static final long FOLLOW_POLL_MS = 200;

  /** What Kubernetes allows as a container name; anything else never names a file here. */
  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

  private final Store store;
  private final ScheduledExecutorService timer;
  private final ReadWriteLock lock;
  private volatile Path logDir;

  PodLogs(Store store, ScheduledExecutorService timer, ReadWriteLock lock) {
    this.store = store;
    this.timer = timer;
    this.lock = lock;
  }

  void setLogDir(Path dir) {
    this.logDir = dir;
  }

  MockResponse read(ResourceType pods, ApiRequest req) {
    ObjectNode pod = store.require(pods, req).obj();
    if (Json.text(pod, "spec", "nodeName") == null) {
      throw ApiException.badRequest("pod " + req.name + " does not have a host assigned");
    }
    String container = container(pod, req.name, req.param("container"));
    if (req.flag("previous")) {
      throw ApiException.badRequest(
          "previous terminated container \""
              + container
              + "\" in pod \""
              + req.name
              + "\" not found");
    }
    Integer tail = number(req, "tailLines");
    Integer limit = number(req, "limitBytes");
    Path file =
        logDir == null
            ? null
            : logDir.resolve(req.namespace + "_" + req.name + "_" + container + ".log");
    boolean exists = file != null && Files.isRegularFile(file);
    if (!exists) {
      String waiting = waitingReason(pod, container);
      if (waiting != null) {
        throw ApiException.badRequest(
            "container \""
                + container
                + "\" in pod \""
                + req.name
                + "\" is waiting to start: "
                + waiting);
      }
    }
    byte[] all = exists ? readAll(file) : new byte[0];
    byte[] now = head(tail(all, tail), limit);
    if (!req.flag("follow")) {
      return new MockResponse()
          .setResponseCode(200)
          .setHeader("Content-Type", "text/plain")
          .setBody(now);
    }
    Follow f =
        new Follow(
            file, all.length, now, limit, () -> running(pods, req.namespace, req.name, container));
    return new MockResponse().setHeader("Content-Type", "text/plain").withWebSocketUpgrade(f);
  }

  private static String container(ObjectNode pod, String podName, String wanted) {
    List<String> names = new ArrayList<>();
    for (JsonNode c : pod.path("spec").path("containers")) {
      names.add(c.path("name").asText());
    }
    String chosen = wanted;
    if (chosen == null || chosen.isEmpty()) {
      if (names.size() != 1) {
        throw ApiException.badRequest(
            "a container name must be specified for pod "
                + podName
                + ", choose one of: ["
                + String.join(" ", names)
                + "]");
      }
      chosen = names.get(0);
    }
    if (!names.contains(chosen) || !DNS_LABEL.matcher(chosen).matches()) {
      throw ApiException.badRequest("container " + chosen + " is not valid for pod " + podName);
    }
    return chosen;
  }

  /** The container's waiting reason, {@code ContainerCreating} when it has no status yet. */
  private static String waitingReason(ObjectNode pod, String container) {
    for (JsonNode cs : pod.path("status").path("containerStatuses")) {
      if (container.equals(cs.path("name").asText())) {
        JsonNode w = cs.path("state").path("waiting");
        return w.isMissingNode() ? null : w.path("reason").asText("ContainerCreating");
      }
    }
    return "ContainerCreating";
  }

  /** The pod is still there and its container not terminated (read from the follow's timer). */
  private boolean running(ResourceType pods, String ns, String name, String container) {
    Store.Stored s;
    lock.readLock().lock();
    try {
      s = store.get(pods, ns, name);
    } finally {
      lock.readLock().unlock();
    }
    if (s == null) {
      return false;
    }
    for (JsonNode cs : s.obj().path("status").path("containerStatuses")) {
      if (container.equals(cs.path("name").asText())) {
        return !cs.path("state").has("terminated");
      }
    }
    return true;
  }

  private static Integer number(ApiRequest req, String key) {
    String v = req.param(key);
    if (v == null) {
      return null;
    }
    try {
      int n = Integer.parseInt(v);
      if (n < 0 || ("limitBytes".equals(key) && n == 0)) {
        throw new NumberFormatException();
      }
      return n;
    } catch (NumberFormatException e) {
      throw ApiException.badRequest(key + ": Invalid value: " + Json.quote(v));
    }
  }

  private static byte[] readAll(Path f) {
    try {
      return Files.readAllBytes(f);
    } catch (IOException e) {
      throw ApiException.internal("cannot read " + f.getFileName() + ": " + e.getMessage());
    }
  }

  /** The last {@code n} lines (a final line without its newline counts as one). */
  static byte[] tail(byte[] all, Integer n) {
    if (n == null) {
      return all;
    }
    int end = all.length;
    int from = end;
    int lines = 0;
    int i = end - 1;
    if (i >= 0 && all[i] == '\n') {
      i--; // the newline that ends the last line
    }
    for (; i >= 0; i--) {
      if (all[i] == '\n') {
        if (++lines == n) {
          break;
        }
      }
    }
    from = n == 0 ? end : i + 1;
    byte[] out = new byte[end - from];
    System.arraycopy(all, from, out, 0, out.length);
    return out;
  }

  static byte[] head(byte[] b, Integer limit) {
    if (limit == null || b.length <= limit) {
      return b;
    }
    byte[] out = new byte[limit];
    System.arraycopy(b, 0, out, 0, limit);
    return out;
  }

  /** One {@code kubectl logs -f}: sends what was there, then polls the file for more. */
  private final class Follow extends WebSocketListener {
    private final Path file;
    private final byte[] first;
    private final Integer limit;
    private final Supplier<Boolean> running;
    private long offset;
    private long sent;
    private volatile ScheduledFuture<?> poll;
    private volatile boolean over;

    Follow(Path file, long offset, byte[] first, Integer limit, Supplier<Boolean> running) {
      this.file = file;
      this.offset = offset;
      this.first = first;
      this.limit = limit;
      this.running = running;
    }

    @Override
    public void onOpen(WebSocket out, Response response) {
      if (!send(out, first)) {
        return;
      }
      poll =
          timer.scheduleWithFixedDelay(
              () -> step(out), FOLLOW_POLL_MS, FOLLOW_POLL_MS, TimeUnit.MILLISECONDS);
    }

    @Override
    public void onClosed(WebSocket out, int code, String reason) {
      stop();
    }

    private synchronized void step(WebSocket out) {
      if (over) {
        return;
      }
      boolean more = running.get();
      byte[] news = readFrom();
      if (!send(out, news) || (news.length == 0 && !more)) {
        stop();
        out.close(1000, "done");
      }
    }

    /** Sends {@code b} within the byte limit; false when the stream is over. */
    private boolean send(WebSocket out, byte[] b) {
      byte[] part = limit == null ? b : head(b, (int) Math.max(0, limit - sent));
      if (part.length > 0 && !out.send(part)) {
        stop();
        return false;
      }
      sent += part.length;
      if (limit != null && sent >= limit) {
        stop();
        out.close(1000, "limitBytes");
        return false;
      }
      return true;
    }

    private byte[] readFrom() {
      if (file == null || !Files.isRegularFile(file)) {
        return new byte[0];
      }
      try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
        long len = f.length();
        if (len < offset) {
          offset = 0; // truncated
        }
        int n = (int) Math.min(len - offset, 1 << 20);
        byte[] b = new byte[n];
        f.seek(offset);
        f.readFully(b);
        offset += n;
        return b;
      } catch (IOException e) {
        return new byte[0];
      }
    }

    private void stop() {
      over = true;
      ScheduledFuture<?> p = poll;
      if (p != null) {
        p.cancel(false);
      }
    }
  }
}
