package dev.tandem.slurm;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Everything Tandem asks of Slurm, independent of the slurmrestd API version.
 *
 * <p>Slurm is reached only through slurmrestd (docs/architecture.md). One adapter per REST API
 * version implements this interface; {@link SlurmClients#create} picks one from the server unless
 * the version is configured. The records this interface speaks ({@link SlurmNode}, {@link
 * SlurmJob}, {@link JobSubmission}) are version-neutral: base states are lower-case ({@code idle}),
 * flags upper-case ({@code DRAIN}), times are {@link Instant}s, and "not set" is {@code null}.
 *
 * <p>Every method either returns or throws a {@link SlurmException} subtype that says what went
 * wrong in a way a caller can act on: {@link SlurmNotFoundException}, {@link
 * SlurmRejectedException} (Slurm's own message, do not retry), {@link SlurmUnavailableException}
 * (retry later), {@link SlurmUnauthorizedException} (token problem) and {@link
 * SlurmUnsupportedException} (this API version cannot do that). Every call has a timeout. Tokens
 * never appear in logs or exception messages.
 */
public interface SlurmClient extends AutoCloseable {

  /** The REST API version this client speaks, e.g. {@code v0.0.38}. */
  ApiVersion apiVersion();

  /**
   * Whether slurmctld answers, and the Slurm version slurmrestd reports. {@code controllerUp=false}
   * means slurmctld does not answer; a token that slurmrestd or slurmctld refuses is a {@link
   * SlurmUnauthorizedException}, never "down", so that a credentials problem never looks like an
   * outage. A slurmrestd that cannot be reached at all is a {@link SlurmUnavailableException}.
   */
  Ping ping();

  /**
   * All nodes, or only whether anything changed since {@code since} (a previous listing's {@link
   * Listing#updateTime()}); {@code null} means a full listing.
   */
  Listing<SlurmNode> listNodes(Instant since);

  /** One node; {@link SlurmNotFoundException} if Slurm does not know it. */
  SlurmNode getNode(String name);

  /**
   * Sets the DRAIN flag with {@code reason} (also when the node is already drained: the reason is
   * replaced). Callers decide whether replacing an existing reason is allowed (see {@code
   * DrainReason} in workflows).
   */
  void drain(String node, String reason);

  /** Clears the DRAIN flag only (a DOWN node stays DOWN). */
  void undrain(String node);

  /** Clears DRAIN and DOWN (Slurm's RESUME). */
  void resume(String node);

  /** Marks the node DOWN with a reason; Slurm kills or requeues its jobs. */
  void down(String node, String reason);

  /**
   * Removes the node record where the API version and the node's kind allow it (dynamic nodes
   * through REST on 23.02+, FUTURE-declared nodes by returning them to FUTURE on 22.05). {@link
   * SlurmUnsupportedException} when it cannot be done.
   */
  void deleteNode(String node);

  /**
   * Creates a dynamic node from one {@code slurm.conf} node line, as {@code scontrol create
   * nodename=...} does, e.g. {@code NodeName=gpu-a-7 State=FUTURE CPUs=8 RealMemory=64000
   * Gres=gpu:h100:8 Feature=h100,ib}. Slurm accepts only {@code State=FUTURE}, {@code CLOUD} or
   * {@code EXTERNAL} here, needs select/cons_tres and an operator token. The line must name one
   * node ({@link IllegalArgumentException} for a hostlist or several lines, before anything is
   * sent). A name Slurm already knows is {@link SlurmRejectedException} 2168 ("Node already
   * exists"), found by a lookup before anything is posted: Slurm 25.11.7 answers a create of an
   * existing name with 2168 <em>and deletes that node</em>, so the adapter never posts one. A
   * retrying caller that gets 2168 compares {@link #getNode} with what it wanted. One window stays
   * open: a node of that name that appears between the lookup and the post (a {@code slurmd -Z}
   * registering it, another caller creating it) is still deleted by Slurm, so do not create a name
   * something else may create at the same time.
   *
   * <p>{@link SlurmUnsupportedException} where the API version has no way to do it (only v0.0.44,
   * Slurm 25.11, serves {@code POST /new/node/}); a node can always join by registering itself
   * ({@code slurmd -Z}).
   */
  default void createNode(String nodeLine) {
    throw new SlurmUnsupportedException(
        "create node: slurmrestd " + apiVersion().path() + " cannot create nodes");
  }

  /**
   * Creates reservation {@code name} over exactly {@code nodes}, starting now, for {@code duration}
   * (whole minutes, rounded up), with flags {@code MAINT,IGNORE_JOBS} (nodes that are drained or
   * running jobs are taken as they are), for the token's user (the user Tandem's jobs run as): only
   * that user's jobs that ask for it run there. Idempotent: a reservation of that name that exists
   * already is left as it is. {@link SlurmUnsupportedException} where the API version cannot
   * (v0.0.41).
   */
  default void createReservation(String name, List<String> nodes, Duration duration) {
    throw new SlurmUnsupportedException(
        "create reservation "
            + name
            + ": slurmrestd "
            + apiVersion().path()
            + " cannot create reservations (Tandem can on Slurm 22.05 through scontrol and on"
            + " v0.0.44)");
  }

  /** Deletes reservation {@code name}; one that does not exist is fine. */
  default void deleteReservation(String name) {
    throw new SlurmUnsupportedException(
        "delete reservation "
            + name
            + ": slurmrestd "
            + apiVersion().path()
            + " cannot delete reservations (Tandem can on Slurm 22.05 through scontrol and on"
            + " v0.0.44)");
  }

  /** Submits a job and returns its id. */
  long submit(JobSubmission job);

  /** One job; {@link SlurmNotFoundException} if unknown or already purged (after MinJobAge). */
  SlurmJob getJob(long id);

  /** Like {@link #listNodes} for jobs. */
  Listing<SlurmJob> listJobs(Instant since);

  /**
   * Cancels a job, or sends it {@code signal} (e.g. {@code SIGTERM}) when not null. Cancelling a
   * job that already ended is not an error. A signal reaches the batch shell and every launched
   * step (slurmrestd's {@code KILL_FULL_JOB}, named explicitly by the v0.0.41+ adapters); sent to a
   * job whose batch shell has not started yet (just after it became RUNNING), it is lost.
   */
  void cancel(long id, String signal);

  /**
   * Every placeholder job tagged with {@code podUid} ({@link PlaceholderTag}), from ONE job
   * listing: zero, one, or more when an earlier submit was retried after a crash. Ended jobs are
   * included until Slurm purges them (MinJobAge).
   */
  default List<PlaceholderJob> findJobsByTag(String podUid) {
    PlaceholderTag.checkUid(podUid);
    return listJobs(null).items().stream()
        .map(PlaceholderJob::of)
        .flatMap(Optional::stream)
        .filter(p -> p.podUid().equals(podUid))
        .toList();
  }

  /**
   * Like {@link #listJobs} (one request; unchanged when nothing changed since {@code since}), but
   * only the jobs carrying a Tandem placeholder tag. A changed listing is the full current set of
   * placeholders: one missing from it was purged by Slurm.
   */
  default Listing<PlaceholderJob> listPlaceholderJobs(Instant since) {
    Listing<SlurmJob> all = listJobs(since);
    if (!all.changed()) {
      return Listing.unchanged(all.updateTime());
    }
    List<PlaceholderJob> tagged =
        all.items().stream().map(PlaceholderJob::of).flatMap(Optional::stream).toList();
    return new Listing<>(true, tagged, all.updateTime());
  }

  /**
   * Slurm's {@code KillWait}: how long after SIGTERM a cancelled or preempted job's processes get
   * SIGKILL. Empty when this client cannot learn it (no slurmrestd version reports it; the 22.05
   * adapter asks {@code scontrol show config}); callers then use configuration.
   */
  default Optional<Duration> killWait() {
    return Optional.empty();
  }

  @Override
  void close();

  /** A REST API version Tandem has an adapter for. */
  enum ApiVersion {
    V0_0_38("v0.0.38"),
    V0_0_41("v0.0.41"),
    V0_0_44("v0.0.44");

    private final String path;

    ApiVersion(String path) {
      this.path = path;
    }

    /** The version as it appears in paths, e.g. {@code v0.0.38}. */
    public String path() {
      return path;
    }

    public static Optional<ApiVersion> fromPath(String s) {
      for (ApiVersion v : values()) {
        if (v.path.equals(s)) {
          return Optional.of(v);
        }
      }
      return Optional.empty();
    }
  }

  /** The answer to {@link #ping()}. */
  record Ping(boolean controllerUp, String slurmVersion, String cluster) {}

  /**
   * The answer to an incremental listing. When {@code changed} is false, {@code items} is empty and
   * the caller keeps its previous view. {@code updateTime} is what to pass as {@code since} next
   * time.
   */
  record Listing<T>(boolean changed, List<T> items, Instant updateTime) {
    public Listing {
      items = List.copyOf(items);
    }

    public static <T> Listing<T> unchanged(Instant updateTime) {
      return new Listing<>(false, List.of(), updateTime);
    }
  }
}
