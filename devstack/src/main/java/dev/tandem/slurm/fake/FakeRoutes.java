package dev.tandem.slurm.fake;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The HTTP side of the fake: authentication, routing of the v0.0.44 paths Tandem uses, and the
 * incremental-listing rules of 25.11 (slurmctld answers "unchanged" when {@code update_time - 1 >=}
 * its last change of that kind, whole seconds; a listing's {@code last_update} is the time it was
 * made).
 */
final class FakeRoutes implements HttpHandler {
  private static final String BASE = "/slurm/v0.0.44/";
  private static final Pattern NODE = Pattern.compile(BASE + "node/([^/]+)");
  private static final Pattern JOB = Pattern.compile(BASE + "job/([0-9]+)");

  private final FakeCluster cluster;
  private final FakeJson json;
  private final FakeAuth auth;
  private final boolean partitionsQuirk;
  private final AtomicLong requests;
  private final AtomicLong bytesOut;
  private final AtomicBoolean slurmctldDown;

  FakeRoutes(
      FakeCluster cluster,
      FakeJson json,
      FakeAuth auth,
      boolean partitionsQuirk,
      AtomicLong requests,
      AtomicLong bytesOut,
      AtomicBoolean slurmctldDown) {
    this.cluster = cluster;
    this.json = json;
    this.auth = auth;
    this.partitionsQuirk = partitionsQuirk;
    this.requests = requests;
    this.bytesOut = bytesOut;
    this.slurmctldDown = slurmctldDown;
  }

  /** One answer: status and body (null for none). */
  private record Answer(int status, JsonNode body) {}

  @Override
  public void handle(HttpExchange ex) throws IOException {
    requests.incrementAndGet();
    Answer a;
    try {
      a = route(ex);
    } catch (FakeSlurmError e) {
      a = new Answer(e.status, json.error(e.number, e.error, e.getMessage(), "fake"));
    } catch (RuntimeException e) {
      a = new Answer(500, json.error(-1, "Unspecified error", String.valueOf(e), "fake"));
    }
    byte[] body = a.body() == null ? new byte[0] : FakeJson.MAPPER.writeValueAsBytes(a.body());
    bytesOut.addAndGet(body.length);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(a.status(), body.length == 0 ? -1 : body.length);
    if (body.length > 0) {
      ex.getResponseBody().write(body);
    }
    ex.close();
  }

  private Answer route(HttpExchange ex) throws IOException {
    String method = ex.getRequestMethod();
    String path = ex.getRequestURI().getPath();
    if (method.equals("GET") && path.equals("/openapi/v3")) {
      // Served without a token, like slurmrestd; its paths name the loaded versions.
      ObjectNode doc = FakeJson.MAPPER.createObjectNode().put("openapi", "3.0.3");
      doc.putObject("paths").putObject(BASE + "ping/");
      return new Answer(200, doc);
    }
    if (!path.startsWith(BASE)) {
      return new Answer(404, null);
    }
    String token = ex.getRequestHeaders().getFirst("X-SLURM-USER-TOKEN");
    if (token == null) {
      return new Answer(401, null);
    }
    Optional<String> user =
        auth.user(token, ex.getRequestHeaders().getFirst("X-SLURM-USER-NAME"), cluster.now());
    if (user.isEmpty()) {
      // 25.11: 511 Network Authentication Required + error 1007.
      return new Answer(
          511,
          json.error(
              1007,
              "Protocol authentication error",
              "Authentication failure",
              "rest_authenticate_http_request"));
    }
    Map<String, String> q = FakeRequests.query(ex.getRequestURI().getRawQuery());
    Matcher node = NODE.matcher(path);
    Matcher job = JOB.matcher(path);
    JsonNode body = null;
    if (method.equals("POST")) {
      byte[] in = ex.getRequestBody().readAllBytes();
      try {
        body = FakeJson.MAPPER.readTree(in);
      } catch (IOException e) {
        throw new FakeSlurmError(400, 9001, "Unable to parse", "request body is not JSON");
      }
    }
    String route = method + " " + (node.matches() ? "node" : job.matches() ? "job" : path);
    if (slurmctldDown.get()) {
      return outage(route, path);
    }
    return switch (route) {
      case "GET " + BASE + "ping/" -> new Answer(200, json.ping(true));
      case "GET " + BASE + "licenses/" -> licenses();
      case "GET " + BASE + "nodes/" -> nodes(q.get("update_time"));
      case "GET node" -> node(node.group(1));
      case "POST node" -> {
        cluster.update(
            node.group(1),
            FakeRequests.states(body),
            FakeRequests.text(body, "reason"),
            user.get());
        yield new Answer(200, json.answer());
      }
      case "DELETE node" -> {
        cluster.delete(node.group(1));
        yield new Answer(200, json.answer());
      }
      case "POST " + BASE + "new/node/" -> {
        cluster.create(FakeRequests.nodeLine(body));
        yield new Answer(200, json.answer());
      }
      case "POST " + BASE + "job/submit" -> submit(body, user.get());
      case "GET " + BASE + "jobs/" -> jobs(q.get("update_time"));
      case "GET job" -> job(Long.parseLong(job.group(1)));
      case "DELETE job" -> cancel(Long.parseLong(job.group(1)), q.get("signal"));
      default -> new Answer(404, null);
    };
  }

  /**
   * slurmctld stopped, as a 25.11.7 slurmrestd answers (without its waits of ~10 s, ~20 s for
   * {@code GET /job/{id}}): the ping 200 with no controller responding; {@code GET /job/{id}} 500 +
   * −1; {@code DELETE /job/{id}} 500 + 1 with an empty {@code status}; {@code GET /jobs/}, {@code
   * /nodes/}, {@code /licenses/} 502 + 1800, and so every other path (the fake's choice).
   */
  private Answer outage(String route, String path) {
    return switch (route) {
      case "GET " + BASE + "ping/" -> new Answer(200, json.ping(false));
      case "GET job" ->
          new Answer(
              500,
              json.error(
                  -1,
                  "Unspecified error",
                  "Unable to query JobId=" + path.substring(path.lastIndexOf('/') + 1),
                  "_handle_job_get"));
      case "DELETE job" -> {
        ObjectNode o =
            json.error(1, "Operation not permitted", "Signal request failed", "slurm_kill_jobs()");
        o.putArray("status");
        yield new Answer(500, o);
      }
      default ->
          new Answer(
              502,
              json.error(
                  1800,
                  "Unable to contact slurm controller (connect failure)",
                  "slurmctld does not answer",
                  "fake"));
    };
  }

  private Answer licenses() {
    ObjectNode o = json.answer();
    o.putArray("licenses");
    o.set("last_update", FakeJson.number(cluster.nowSeconds()));
    return new Answer(200, o);
  }

  private Answer nodes(String updateTime) {
    synchronized (cluster) {
      if (updateTime != null) {
        long since = Long.parseLong(updateTime);
        if (since - 1 >= cluster.nodesChanged) {
          return new Answer(304, null);
        }
        if (partitionsQuirk && since - 1 >= cluster.partitionsChanged) {
          // 25.11 passes update_time to the partition query too (docs/slurm-versions.md).
          return new Answer(
              500,
              json.error(-1, "Unspecified error", "Unable to query partitions", "_dump_nodes"));
        }
      }
      ObjectNode o = json.answer();
      ArrayNode list = o.putArray("nodes");
      FakeScheduler s = cluster.scheduler();
      cluster.nodes.values().forEach(n -> json.node(list, n, s));
      o.set("last_update", FakeJson.number(cluster.nowSeconds()));
      return new Answer(200, o);
    }
  }

  private Answer node(String name) {
    synchronized (cluster) {
      FakeNode n = cluster.nodes.get(name);
      if (n == null) {
        // 25.11: 200, error_number 0, no "nodes" key.
        return new Answer(
            200, json.error(0, "No error", "Failure to query node " + name, "_dump_nodes"));
      }
      ObjectNode o = json.answer();
      json.node(o.putArray("nodes"), n, cluster.scheduler());
      o.set("last_update", FakeJson.number(cluster.nowSeconds()));
      return new Answer(200, o);
    }
  }

  private Answer submit(JsonNode body, String user) {
    long id = cluster.submit(FakeRequests.job(body, defaultPartition()), user);
    ObjectNode o = json.answer();
    o.put("job_id", id).put("step_id", "batch").put("job_submit_user_msg", "");
    return new Answer(200, o);
  }

  private String defaultPartition() {
    synchronized (cluster) {
      return cluster.partitions.keySet().stream().findFirst().orElse(null);
    }
  }

  private Answer jobs(String updateTime) {
    synchronized (cluster) {
      ObjectNode o = json.answer();
      ArrayNode list = o.putArray("jobs");
      o.set("last_backfill", FakeJson.number(0L));
      if (updateTime != null && Long.parseLong(updateTime) - 1 >= cluster.jobsChanged) {
        // 25.11: 200, no jobs, last_update 0 and a warning, instead of a 304.
        o.set("last_update", FakeJson.number(0L));
        FakeJson.warn(o, "No job changes since update_time[" + updateTime + "]", "op_handler_jobs");
        return new Answer(200, o);
      }
      cluster.jobs.values().forEach(j -> json.job(list, j));
      o.set("last_update", FakeJson.number(cluster.nowSeconds()));
      return new Answer(200, o);
    }
  }

  private Answer job(long id) {
    synchronized (cluster) {
      FakeJob j = cluster.job(id);
      if (j == null) {
        ObjectNode o =
            json.error(2017, "Invalid job id specified", "Unable to query JobId=" + id, "fake");
        o.putArray("jobs");
        o.set("last_backfill", FakeJson.number(0L));
        o.set("last_update", FakeJson.number(0L));
        return new Answer(404, o);
      }
      ObjectNode o = json.answer();
      json.job(o.putArray("jobs"), j);
      o.set("last_backfill", FakeJson.number(0L));
      o.set("last_update", FakeJson.number(cluster.nowSeconds()));
      return new Answer(200, o);
    }
  }

  private Answer cancel(long id, String signal) {
    int number = signal == null ? 0 : FakeSignals.number(signal);
    if (number < 0) {
      throw new FakeSlurmError(400, 9001, "Unable to parse", "unknown signal " + signal);
    }
    int code = cluster.signal(id, number);
    ObjectNode o = json.answer();
    ArrayNode status = o.putArray("status");
    if (code != 0) {
      FakeJson.cancelStatus(status, id, code);
    }
    return new Answer(200, o);
  }
}
