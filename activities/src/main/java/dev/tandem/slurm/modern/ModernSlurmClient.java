package dev.tandem.slurm.modern;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.slurm.JobSubmission;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmException;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmNode;
import dev.tandem.slurm.SlurmNotFoundException;
import dev.tandem.slurm.SlurmRejectedException;
import dev.tandem.slurm.SlurmTransport;
import dev.tandem.slurm.SlurmTransport.Request;
import dev.tandem.slurm.SlurmTransport.Response;
import dev.tandem.slurm.SlurmUnavailableException;
import dev.tandem.slurm.SlurmUnsupportedException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link SlurmClient} for slurmrestd data parsers v0.0.41 to v0.0.44 (Slurm 24.05 to 25.11).
 * Those versions agree on every path, field and value shape Tandem uses; the subclasses name the
 * version and document what little differs (docs/slurm-versions.md).
 */
public abstract class ModernSlurmClient implements SlurmClient {
  private static final Logger log = LoggerFactory.getLogger(ModernSlurmClient.class);

  /**
   * Show flags for node queries, each sent as its own {@code flags=} parameter (a comma list gives
   * a text 500 on 25.11). Any flag replaces slurmrestd's default ALL|DETAIL|MIXED, so those are
   * repeated; FUTURE adds nodes declared ahead of time.
   */
  public static final List<String> NODE_FLAGS = List.of("ALL", "DETAIL", "MIXED", "FUTURE");

  private final SlurmTransport transport;
  private final ApiVersion version;
  private final String base;

  protected ModernSlurmClient(SlurmTransport transport, ApiVersion version) {
    this.transport = Objects.requireNonNull(transport, "transport");
    this.version = Objects.requireNonNull(version, "version");
    this.base = "/slurm/" + version.path();
  }

  @Override
  public ApiVersion apiVersion() {
    return version;
  }

  @Override
  public Ping ping() {
    String ctx = "ping slurmctld";
    Response r = transport.send(Request.get(base + "/ping/"));
    JsonNode body = Responses.parseQuietly(r.body());
    if (!r.ok()) {
      SlurmException e = SlurmErrors.toException(ctx, r.status(), body, r.body());
      if (e instanceof SlurmUnavailableException) {
        // slurmrestd answered but could not reach slurmctld: that is the answer to a ping.
        return new Ping(false, ModernParsers.slurmVersion(body), ModernParsers.clusterName(body));
      }
      throw e;
    }
    body = Responses.requireJson(ctx, r);
    boolean up = false;
    for (JsonNode p : body.path("pings")) {
      // v0.0.44 says "responding"; v0.0.41 only "pinged": "UP" (deprecated in v0.0.44).
      JsonNode responding = p.get("responding");
      up |=
          responding != null && responding.isBoolean()
              ? responding.asBoolean()
              : "UP".equalsIgnoreCase(p.path("pinged").asText(""));
    }
    return new Ping(up, ModernParsers.slurmVersion(body), ModernParsers.clusterName(body));
  }

  @Override
  public Listing<SlurmNode> listNodes(Instant since) {
    String ctx = "list nodes";
    Response r = transport.send(Request.get(base + "/nodes/", nodeQuery(since)));
    if (since != null) {
      if (r.status() == 304) {
        return Listing.unchanged(since);
      }
      if (r.status() == 500 && !Responses.knownOutage(r)) {
        // Slurm 22.05 to 25.11 answer 500 "Unable to query partitions" when nodes changed but
        // partitions did not (the handler passes update_time to the partition query too). Nodes
        // did change, so a full listing is the right answer.
        log.debug("{} since {}: HTTP {}, listing in full", ctx, since, r.status());
        r = transport.send(Request.get(base + "/nodes/", nodeQuery(null)));
      }
    }
    JsonNode body = Responses.requireOk(ctx, r);
    List<SlurmNode> nodes =
        Responses.parseAll(ctx, Responses.list(ctx, body, "nodes"), ModernParsers::node);
    return new Listing<>(true, nodes, Json.instant(body.get("last_update")));
  }

  @Override
  public SlurmNode getNode(String name) {
    ModernRequests.checkNodeName(name);
    String ctx = "get node " + name;
    Response r = transport.send(Request.get(base + "/node/" + name, nodeQuery(null)));
    JsonNode body = Responses.requireOk(ctx, r);
    List<SlurmNode> nodes = Responses.parseAll(ctx, body.path("nodes"), ModernParsers::node);
    for (SlurmNode n : nodes) {
      if (n.name().equals(name)) {
        return n;
      }
    }
    if (!nodes.isEmpty()) {
      // Other nodes but not this one: no answer Slurm gives (a garbled or misrouted one).
      // Taking it for "unknown node" would let callers conclude the node is gone: fail closed.
      throw new SlurmUnavailableException(
          ctx + ": slurmrestd answered other nodes (" + nodes.get(0).name() + ", ...) but not it");
    }
    // 25.11 answers an unknown node with 200, error_number 0 and no "nodes" key.
    throw new SlurmNotFoundException(
        ctx + ": Slurm does not know this node" + Responses.errorText(body));
  }

  @Override
  public void drain(String node, String reason) {
    updateNode(node, "DRAIN", Objects.requireNonNull(reason, "reason"), "drain");
  }

  @Override
  public void undrain(String node) {
    updateNode(node, "UNDRAIN", null, "undrain");
  }

  @Override
  public void resume(String node) {
    try {
      updateNode(node, "RESUME", null, "resume");
    } catch (SlurmRejectedException e) {
      if (e.errorNumber() != SlurmErrors.INVALID_NODE_STATE_TRANSITION) {
        throw e;
      }
      // slurmctld refuses RESUME for a node that is neither down, drained, failed nor future,
      // i.e. one already in service: a retried activity has nothing left to do. The same error
      // also means "registered with an invalid configuration", so look before calling it done.
      SlurmNode n = getNode(node);
      if (n.drainFlag() || n.down() || n.future()) {
        throw e;
      }
      log.debug("resume node {}: already in service ({})", node, e.slurmMessage());
    }
  }

  @Override
  public void down(String node, String reason) {
    updateNode(node, "DOWN", Objects.requireNonNull(reason, "reason"), "down");
  }

  private void updateNode(String node, String state, String reason, String verb) {
    ModernRequests.checkNodeName(node);
    String ctx = verb + " node " + node;
    String json = Responses.write(ModernRequests.nodeUpdate(state, reason));
    Response r = transport.send(Request.post(base + "/node/" + node, json));
    Responses.requireSuccess(ctx, r);
  }

  @Override
  public void deleteNode(String node) {
    ModernRequests.checkNodeName(node);
    String ctx = "delete node " + node;
    Response r = transport.send(Request.delete(base + "/node/" + node, Map.of()));
    try {
      Responses.requireSuccess(ctx, r);
    } catch (SlurmNotFoundException gone) {
      // Already removed (a retried activity, or someone else): the goal is reached.
      log.debug("{}: already gone ({})", ctx, gone.getMessage());
    } catch (SlurmRejectedException e) {
      if (e.errorNumber() == SlurmErrors.INVALID_NODE_STATE) {
        // slurmctld refuses to delete nodes that are not dynamic (declared in slurm.conf).
        throw new SlurmUnsupportedException(
            ctx
                + ": Slurm removes only dynamic nodes; this one is declared in slurm.conf ("
                + e.slurmMessage()
                + ")",
            e);
      }
      throw e;
    }
  }

  @Override
  public long submit(JobSubmission job) {
    String ctx = "submit job " + job.name();
    if (job.userName() != null) {
      // The job belongs to the token's user; v0.0.41+ has no safe way to act for another user
      // (a non-operator cancelling another user's job deadlocked a 25.11 slurmctld).
      log.debug("{}: userName {} is not sent; the token's user owns the job", ctx, job.userName());
    }
    String json = Responses.write(ModernRequests.submit(job));
    Response r = transport.send(Request.post(base + "/job/submit", json));
    JsonNode body = Responses.parseQuietly(r.body());
    if (!r.ok()) {
      throw SlurmErrors.toException(ctx, r.status(), body, r.body());
    }
    body = Responses.requireJson(ctx, r);
    Long id = Json.number(body.get("job_id"));
    if (id == null || id <= 0) {
      SlurmErrors.SlurmError e = SlurmErrors.primary(SlurmErrors.errors(body));
      if (e != null) {
        throw SlurmErrors.fromNumber(ctx, e.number(), e.text());
      }
      throw new SlurmUnavailableException(ctx + ": slurmrestd answered without a job_id");
    }
    for (String w : SlurmErrors.warnings(body)) {
      log.info("{}: job {} submitted with a Slurm warning: {}", ctx, id, w);
    }
    return id;
  }

  @Override
  public SlurmJob getJob(long id) {
    String ctx = "get job " + id;
    Response r = transport.send(Request.get(base + "/job/" + id));
    JsonNode body = Responses.requireOk(ctx, r);
    for (SlurmJob j : Responses.parseAll(ctx, body.path("jobs"), ModernParsers::job)) {
      if (j.id() == id) {
        return j;
      }
    }
    throw new SlurmNotFoundException(
        ctx + ": Slurm does not know this job" + Responses.errorText(body));
  }

  @Override
  public Listing<SlurmJob> listJobs(Instant since) {
    String ctx = "list jobs";
    Map<String, List<String>> query = new LinkedHashMap<>();
    if (since != null) {
      query.put("update_time", List.of(Long.toString(since.getEpochSecond())));
    }
    Response r = transport.send(Request.get(base + "/jobs/", query));
    if (since != null && r.status() == 304) {
      return Listing.unchanged(since);
    }
    JsonNode body = Responses.requireOk(ctx, r);
    JsonNode jobs = body.path("jobs");
    Instant lastUpdate = Json.instant(body.get("last_update"));
    if (since != null && jobs.isEmpty() && (lastUpdate == null || Responses.noJobChanges(body))) {
      // 24.05/25.11 answer "unchanged" with 200, "jobs": [], no last_update and the warning
      // "No job changes since update_time[...]". A real listing always carries last_update.
      return Listing.unchanged(since);
    }
    return new Listing<>(
        true,
        Responses.parseAll(ctx, Responses.list(ctx, body, "jobs"), ModernParsers::job),
        lastUpdate);
  }

  @Override
  public void cancel(long id, String signal) {
    ModernRequests.checkSignal(signal);
    String ctx = (signal == null ? "cancel job " : "signal " + signal + " to job ") + id;
    Map<String, List<String>> query = signal == null ? Map.of() : Map.of("signal", List.of(signal));
    Response r = transport.send(Request.delete(base + "/job/" + id, query));
    JsonNode body = Responses.parseQuietly(r.body());
    if (!r.ok()) {
      SlurmErrors.SlurmError e = SlurmErrors.primary(SlurmErrors.errors(body));
      if (e != null && endedAlready(e.number())) {
        return;
      }
      throw SlurmErrors.toException(ctx, r.status(), body, r.body());
    }
    if (r.body() == null || r.body().isBlank()) {
      return; // an empty 200/204 carries no error
    }
    body = Responses.requireJson(ctx, r);
    // v0.0.44: 200 with {"status":[...]}; an empty list is success, per-job failures sit in
    // status[i].error.code. v0.0.41: errors[] (an already ended job is only a warning there).
    for (JsonNode s : body.path("status")) {
      int code = Json.intValue(s.path("error").get("code"), 0);
      if (code != 0 && !endedAlready(code)) {
        String msg = Json.text(s.path("error").get("message"));
        String str = Json.text(s.path("error").get("string"));
        throw SlurmErrors.fromNumber(ctx, code, msg != null ? msg : str != null ? str : "?");
      }
    }
    for (SlurmErrors.SlurmError e : SlurmErrors.errors(body)) {
      if (e.number() != 0 && !endedAlready(e.number())) {
        throw SlurmErrors.fromNumber(ctx, e.number(), e.text());
      }
    }
  }

  /** Cancelling a job that ended (2021) or was already purged (2017) reaches the goal. */
  private static boolean endedAlready(int slurmError) {
    return slurmError == SlurmErrors.ALREADY_DONE || slurmError == SlurmErrors.INVALID_JOB_ID;
  }

  /**
   * Always empty: no path of v0.0.41 or v0.0.44 reports KillWait (the slurmdb config is accounting
   * data), and these adapters run no commands. Callers use configuration.
   */
  @Override
  public Optional<Duration> killWait() {
    return Optional.empty();
  }

  @Override
  public void close() {
    transport.close();
  }

  // ---- helpers ----

  private static Map<String, List<String>> nodeQuery(Instant since) {
    Map<String, List<String>> q = new LinkedHashMap<>();
    if (since != null) {
      q.put("update_time", List.of(Long.toString(since.getEpochSecond())));
    }
    q.put("flags", NODE_FLAGS);
    return q;
  }
}
