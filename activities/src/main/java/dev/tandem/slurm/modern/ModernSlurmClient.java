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

  /** See {@link ModernPing}: a refused token is unauthorized, never "controller down". */
  @Override
  public Ping ping() {
    return ModernPing.ping(transport, base);
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

  /**
   * Whether this version serves {@code POST /new/node/} (v0.0.44 does; the v0.0.41 spec has no such
   * path).
   */
  protected boolean servesNewNode() {
    return false;
  }

  /**
   * Looks the name up first and never posts a name Slurm knows: Slurm 25.11.7 answers {@code POST
   * /new/node/} for an existing name with 2168 (ESLURM_NODE_ALREADY_EXISTS) and then deletes that
   * node, even a registered, idle one with its slurmd running ({@code add_node_record()} hands back
   * the existing record with that error, and the callback in {@code node_mgr.c} deletes it).
   */
  @Override
  public void createNode(String nodeLine) {
    String json = Responses.write(ModernRequests.createNode(nodeLine));
    String name = ModernRequests.nodeLineName(nodeLine);
    String ctx = "create node " + name;
    if (!servesNewNode()) {
      throw new SlurmUnsupportedException(
          ctx
              + ": slurmrestd "
              + version.path()
              + " has no POST /new/node/ (v0.0.44, Slurm 25.11, has); a node can still join"
              + " by registering itself (slurmd -Z)");
    }
    if (known(name)) {
      throw new SlurmRejectedException(
          SlurmErrors.NODE_ALREADY_EXISTS,
          "Slurm already has a node of this name; not sent, because Slurm 25.11 deletes the"
              + " existing node when asked to create it again",
          ctx);
    }
    Response r = transport.send(Request.post(base + "/new/node/", json));
    SlurmErrors.SlurmError e =
        r.ok() ? null : SlurmErrors.primary(SlurmErrors.errors(Responses.parseQuietly(r.body())));
    if (e != null && e.number() == -1) {
      // slurmctld answers SLURM_ERROR only when it cannot parse or apply the line (an outage is a
      // 1000/1800 number): retrying the same line cannot help.
      throw new SlurmRejectedException(
          -1, "slurmctld could not parse or apply the node line (" + e.text() + ")", ctx);
    }
    Responses.requireSuccess(ctx, r);
  }

  /** Whether Slurm knows the node; an outage or a refused token is thrown, never "unknown". */
  private boolean known(String name) {
    try {
      getNode(name);
      return true;
    } catch (SlurmNotFoundException unknown) {
      return false;
    }
  }

  /** Whether this version serves {@code POST /reservation} (v0.0.44 does; v0.0.41 has none). */
  protected boolean servesReservations() {
    return false;
  }

  /** See {@link ModernReservations}. */
  @Override
  public void createReservation(String name, List<String> nodes, Duration duration) {
    if (!servesReservations()) {
      SlurmClient.super.createReservation(name, nodes, duration);
    }
    new ModernReservations(transport, base, java.time.Clock.systemUTC())
        .create(name, nodes, duration);
  }

  @Override
  public void deleteReservation(String name) {
    if (!servesReservations()) {
      SlurmClient.super.deleteReservation(name);
    }
    new ModernReservations(transport, base, java.time.Clock.systemUTC()).delete(name);
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
      throw submitRefused(
          ctx + " (HTTP " + r.status() + ")",
          SlurmErrors.toException(ctx, r.status(), body, r.body()),
          body);
    }
    body = Responses.requireJson(ctx, r);
    Long id = Json.number(body.get("job_id"));
    if (id == null || id <= 0) {
      SlurmErrors.SlurmError e = SlurmErrors.primary(SlurmErrors.errors(body));
      if (e != null) {
        throw submitRefused(ctx, SlurmErrors.fromNumber(ctx, e.number(), e.text()), body);
      }
      throw new SlurmUnavailableException(ctx + ": slurmrestd answered without a job_id");
    }
    for (String w : SlurmErrors.warnings(body)) {
      log.info("{}: job {} submitted with a Slurm warning: {}", ctx, id, w);
    }
    return id;
  }

  /**
   * A submission names no existing object, so "not found" cannot be its answer: a job pinned to an
   * unknown node (2018) or depending on an unknown job (2017) is refused, with Slurm's words.
   */
  private static SlurmException submitRefused(String where, SlurmException e, JsonNode body) {
    if (!(e instanceof SlurmNotFoundException)) {
      return e;
    }
    SlurmErrors.SlurmError err = SlurmErrors.primary(SlurmErrors.errors(body));
    int number = err == null ? 0 : err.number();
    String text = err == null ? e.getMessage() : err.text();
    return new SlurmRejectedException(number, text, where);
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
    // 24.05/25.11 answer "unchanged" with 200, "jobs": [], last_update 0 and the warning "No
    // job changes since update_time[...]"; a real listing carries a non-zero one. The listing
    // is read as a token stream (ModernJobs): it holds every job slurmctld keeps.
    return ModernJobs.listing(ctx, r, since);
  }

  /** See {@link ModernCancel} (Slurm error 1 from 25.11 is slurmctld not answering). */
  @Override
  public void cancel(long id, String signal) {
    ModernCancel.cancel(transport, base, id, signal);
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
