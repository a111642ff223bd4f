package dev.tandem.slurm.v0038;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.slurm.JobSubmission;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmClientConfig;
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
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link SlurmClient} for Slurm 22.05's slurmrestd (openapi v0.0.38). Reads and jobs go through
 * REST; node state changes go through {@code scontrol} (22.05's REST cannot change nodes), see
 * docs/slurm-client.md for what works how and for the error mapping.
 */
public final class SlurmClientV0038 implements SlurmClient {
  private static final Logger LOG = LoggerFactory.getLogger(SlurmClientV0038.class);
  private static final String BASE = "/slurm/v0.0.38";
  private static final Pattern NODE_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");
  private static final Pattern SIGNAL = Pattern.compile("(SIG)?[A-Z0-9]{1,16}");

  /**
   * Slurm compares {@code update_time} with its own last-change second ({@code >=} means
   * unchanged), so the next {@code since} is backed off from our clock: changes within the same
   * second, and a slurmctld clock up to this much behind ours, are reported again rather than lost.
   */
  static final Duration UPDATE_TIME_MARGIN = Duration.ofSeconds(3);

  private final SlurmTransport transport;
  private final Scontrol scontrol;
  private final V0038NodeChanges nodes;
  private final Clock clock;

  public SlurmClientV0038(SlurmTransport transport, SlurmClientConfig config) {
    this(
        transport,
        new Scontrol(
            config.scontrol(), config.slurmConf(), config.tokenSource(), config.commandTimeout()),
        new FutureNodes(config.slurmConf()),
        Clock.systemUTC());
  }

  SlurmClientV0038(
      SlurmTransport transport, Scontrol scontrol, FutureNodes futureNodes, Clock clock) {
    this.transport = transport;
    this.scontrol = scontrol;
    this.nodes = new V0038NodeChanges(scontrol, futureNodes, this::getNode);
    this.clock = clock;
  }

  @Override
  public ApiVersion apiVersion() {
    return ApiVersion.V0_0_38;
  }

  // ------------------------------------------------------------------ REST plumbing

  /** Sends and returns the JSON of a 2xx answer; anything else becomes a typed exception. */
  private JsonNode call(Request request, String context) {
    long start = System.nanoTime();
    Response r = transport.send(request);
    if (r.ok()) {
      return V0038Json.parse(r.body(), context);
    }
    throw failure(r, context, Duration.ofNanos(System.nanoTime() - start));
  }

  /**
   * Like {@link #call} for reads, where a 2xx answer that still carries Slurm errors is a failure:
   * its lists cannot be trusted to be complete (an empty node or job list would look like "none").
   * Writes differ: a submit answers a held job with error 2042 next to the new job's id.
   */
  private JsonNode read(Request request, String context) {
    long start = System.nanoTime();
    Response r = transport.send(request);
    if (!r.ok()) {
      throw failure(r, context, Duration.ofNanos(System.nanoTime() - start));
    }
    JsonNode root = V0038Json.parse(r.body(), context);
    if (V0038Errors.errors(root).stream().anyMatch(e -> e.number() != 0)) {
      throw failure(r, context, Duration.ofNanos(System.nanoTime() - start));
    }
    return root;
  }

  private SlurmException failure(Response r, String context, Duration took) {
    return V0038Errors.toException(
        r, context, msg -> V0038Errors.diagnoseUnspecified(scontrol, msg, took));
  }

  static void checkNodeName(String node) {
    if (node == null || !NODE_NAME.matcher(node).matches()) {
      throw new SlurmRejectedException(
          0, "invalid node name '" + node + "' (one node name, no hostlist)", "node name");
    }
  }

  private Instant nextSince(Instant requestStart) {
    return Instant.ofEpochSecond(requestStart.getEpochSecond()).minus(UPDATE_TIME_MARGIN);
  }

  // ------------------------------------------------------------------ reads

  @Override
  public Ping ping() {
    long start = System.nanoTime();
    // A transport failure (slurmrestd unreachable) propagates: that is no answer at all.
    Response r = transport.send(Request.get(BASE + "/ping"));
    if (r.ok()) {
      JsonNode root = V0038Json.parse(r.body(), "ping");
      boolean up = false;
      for (JsonNode p : root.path("pings")) {
        up |= "UP".equalsIgnoreCase(p.path("ping").asText());
      }
      return new Ping(up, V0038Json.text(root.path("meta").path("Slurm"), "release"), null);
    }
    SlurmException e = failure(r, "ping", Duration.ofNanos(System.nanoTime() - start));
    if (e instanceof SlurmUnavailableException) {
      LOG.debug("ping: slurmctld down: {}", e.getMessage());
      JsonNode root = V0038Errors.tryParse(r.body());
      String version =
          root == null ? null : V0038Json.text(root.path("meta").path("Slurm"), "release");
      return new Ping(false, version, null);
    }
    throw e;
  }

  @Override
  public Listing<SlurmNode> listNodes(Instant since) {
    Instant now = clock.instant();
    if (since != null) {
      long start = System.nanoTime();
      Response r =
          transport.send(
              Request.get(BASE + "/nodes", Map.of("update_time", List.of(epoch(since)))));
      if (r.status() == 304) {
        return Listing.unchanged(nextSince(now));
      }
      if (r.ok()) {
        JsonNode root = V0038Json.parse(r.body(), "list nodes");
        if (V0038Errors.errors(root).stream().anyMatch(e -> e.number() != 0)) {
          throw failure(r, "list nodes", Duration.ofNanos(System.nanoTime() - start));
        }
        return new Listing<>(true, V0038Json.nodes(root, "list nodes"), nextSince(now));
      }
      List<V0038Errors.SlurmError> errors = V0038Errors.errors(V0038Errors.tryParse(r.body()));
      if (!(r.status() == 500 && V0038Errors.has(errors, V0038Errors.UNSPECIFIED))) {
        throw failure(r, "list nodes", Duration.ofNanos(System.nanoTime() - start));
      }
      // 22.05 bug: /nodes?update_time answers 500 "Unspecified error" when nodes changed but
      // partitions did not. So it did change: fall through to a full listing (which also tells a
      // real token/controller problem, since it fails the same way then).
    }
    JsonNode root = read(Request.get(BASE + "/nodes"), "list nodes");
    return new Listing<>(true, V0038Json.nodes(root, "list nodes"), nextSince(now));
  }

  @Override
  public SlurmNode getNode(String name) {
    checkNodeName(name);
    String context = "get node " + name;
    JsonNode root = read(Request.get(BASE + "/node/" + name), context);
    for (SlurmNode n : V0038Json.nodes(root, context)) {
      if (name.equals(n.name())) {
        return n;
      }
    }
    // 22.05 answers an unknown node with HTTP 500 and error 2018 (see V0038Errors). A success
    // without the node is no such answer: taking it for "gone" would fail open.
    throw new SlurmUnavailableException(
        context
            + ": slurmrestd answered a node list without "
            + name
            + ": "
            + V0038Json.snippet(root.toString()));
  }

  @Override
  public SlurmJob getJob(long id) {
    if (id <= 0) {
      throw new SlurmNotFoundException("get job " + id + ": not a job id");
    }
    long start = System.nanoTime();
    Response r = transport.send(Request.get(BASE + "/job/" + id));
    for (SlurmJob j : jobs(r, "get job " + id, start)) {
      if (j.id() == id) {
        return j;
      }
    }
    throw new SlurmNotFoundException("get job " + id + ": Slurm returned no such job");
  }

  @Override
  public Listing<SlurmJob> listJobs(Instant since) {
    Instant now = clock.instant();
    Map<String, List<String>> q =
        since == null ? Map.of() : Map.of("update_time", List.of(epoch(since)));
    long start = System.nanoTime();
    Response r = transport.send(Request.get(BASE + "/jobs", q));
    if (r.status() == 304) {
      return Listing.unchanged(nextSince(now));
    }
    return new Listing<>(true, jobs(r, "list jobs", start), nextSince(now));
  }

  /**
   * The jobs of a job answer, failing as {@link #read} does. The answer is read as a token stream
   * ({@link V0038Jobs}), not as a tree: 22.05 lists every job it holds, megabytes every poll.
   */
  private List<SlurmJob> jobs(Response r, String context, long start) {
    if (!r.ok()) {
      throw failure(r, context, Duration.ofNanos(System.nanoTime() - start));
    }
    V0038Jobs.Answer answer = V0038Jobs.read(r, context);
    if (answer.slurmErrors()) {
      throw failure(r, context, Duration.ofNanos(System.nanoTime() - start));
    }
    return answer.jobs();
  }

  private static String epoch(Instant t) {
    return Long.toString(Math.max(0, t.getEpochSecond()));
  }

  // ------------------------------------------------------------------ jobs

  @Override
  public long submit(JobSubmission job) {
    if (job.userName() != null) {
      // The transport sends one user name (the operator the token belongs to); acting as other
      // users is not done (it deadlocked slurmctld 25.11 without accounting, see the notes).
      throw new SlurmUnsupportedException(
          "submit as user '"
              + job.userName()
              + "': the v0.0.38 adapter submits as the configured"
              + " user only");
    }
    String context = "submit job '" + job.name() + "'";
    long start = System.nanoTime();
    Response r = transport.send(Request.post(BASE + "/job/submit", SubmitBody.json(job)));
    if (!r.ok()) {
      SlurmException e = failure(r, context, Duration.ofNanos(System.nanoTime() - start));
      if (e instanceof SlurmNotFoundException) {
        // 22.05 answers a job pinned to an unknown node with HTTP 500 and 2018: a submission names
        // nothing that could be gone, so it is a refusal, with Slurm's words.
        List<V0038Errors.SlurmError> errors = V0038Errors.errors(V0038Errors.tryParse(r.body()));
        int n = errors.isEmpty() ? 0 : errors.get(0).number();
        throw new SlurmRejectedException(n, V0038Errors.join(errors), context);
      }
      throw e;
    }
    JsonNode root = V0038Json.parse(r.body(), context);
    JsonNode id = root.get("job_id");
    if (id == null || !id.canConvertToLong() || id.asLong() <= 0) {
      throw new SlurmUnavailableException(
          context + ": slurmrestd answered no job id: " + V0038Json.snippet(root.toString()));
    }
    List<V0038Errors.SlurmError> errors = V0038Errors.errors(root);
    if (!errors.isEmpty()) {
      // 22.05 reports e.g. a held job (2042) as an error next to the new job's id.
      LOG.info(
          "{}: job {} submitted with Slurm notes: {}",
          context,
          id.asLong(),
          V0038Errors.join(errors));
    }
    return id.asLong();
  }

  @Override
  public void cancel(long id, String signal) {
    if (id <= 0) {
      throw new SlurmRejectedException(0, "not a job id", "cancel job " + id);
    }
    Map<String, List<String>> q = Map.of();
    if (signal != null) {
      if (!SIGNAL.matcher(signal).matches()) {
        throw new SlurmRejectedException(0, "invalid signal '" + signal + "'", "cancel job " + id);
      }
      q = Map.of("signal", List.of(signal));
    }
    String context = signal == null ? "cancel job " + id : "signal " + signal + " to job " + id;
    long start = System.nanoTime();
    Response r = transport.send(Request.delete(BASE + "/job/" + id, q));
    if (r.ok()) {
      return;
    }
    List<V0038Errors.SlurmError> errors = V0038Errors.errors(V0038Errors.tryParse(r.body()));
    if (V0038Errors.has(errors, V0038Errors.ALREADY_DONE)
        || V0038Errors.has(errors, V0038Errors.INVALID_JOB_ID)) {
      // Ended (2021) or already purged after MinJobAge (2017): the job is gone, which is what a
      // (retried) cancel wants. Same rule as the v0.0.41+ adapters.
      return;
    }
    throw failure(r, context, Duration.ofNanos(System.nanoTime() - start));
  }

  /**
   * 22.05's REST API reports no KillWait (neither {@code /diag} nor any other v0.0.38 path), so it
   * comes from {@code scontrol show config}, which the adapter already needs; empty without
   * scontrol.
   */
  @Override
  public Optional<Duration> killWait() {
    if (!scontrol.configured()) {
      return Optional.empty();
    }
    return scontrol.killWait();
  }

  // ------------------------------------------------------------------ nodes (scontrol)

  @Override
  public void drain(String node, String reason) {
    nodes.drain(node, reason);
  }

  @Override
  public void undrain(String node) {
    nodes.undrain(node);
  }

  @Override
  public void resume(String node) {
    nodes.resume(node);
  }

  @Override
  public void down(String node, String reason) {
    nodes.down(node, reason);
  }

  @Override
  public void deleteNode(String node) {
    nodes.delete(node);
  }

  /**
   * Unsupported: the 22.05 REST API has no node creation. Slurm 22.05 makes dynamic nodes only by
   * slurmd registration ({@code slurmd -Z}) or {@code scontrol create nodename=...}; this adapter
   * runs scontrol for node state only, and Tandem's nodes register themselves.
   */
  @Override
  public void createNode(String nodeLine) {
    throw new SlurmUnsupportedException(
        "create node: slurmrestd v0.0.38 (Slurm 22.05) cannot create nodes; 22.05 makes dynamic"
            + " nodes only when slurmd -Z registers or by 'scontrol create nodename=...'");
  }

  /** Through {@code scontrol create reservation} (22.05's REST API has no reservation writes). */
  @Override
  public void createReservation(String name, List<String> nodes, Duration duration) {
    scontrol.createReservation(name, nodes, duration);
  }

  /** Through {@code scontrol delete ReservationName=...}. */
  @Override
  public void deleteReservation(String name) {
    scontrol.deleteReservation(name);
  }

  @Override
  public void close() {
    transport.close();
  }

  @Override
  public String toString() {
    return "SlurmClientV0038[" + transport + "]";
  }
}
