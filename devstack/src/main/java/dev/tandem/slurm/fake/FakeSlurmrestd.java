package dev.tandem.slurm.fake;

import com.sun.net.httpserver.HttpServer;
import dev.tandem.slurm.Jwt;
import dev.tandem.slurm.SlurmClientConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A simulated slurmrestd + slurmctld speaking REST API v0.0.44 (Slurm 25.11) on 127.0.0.1, for
 * tests and the fleet benchmark (docs/fake-slurm.md). It models nodes, jobs with a first-fit
 * scheduler and partition-tier preemption, node state changes, dynamic node registration and
 * deletion, incremental listings with 25.11's quirks, and JWT authentication. The contract suite
 * ({@code dev.tandem.slurm.contract}) runs against it and against the real Slurm 22.05.
 */
public final class FakeSlurmrestd implements AutoCloseable {
  /** A node's configuration, as its slurmd registers it. */
  public record NodeSpec(String name, int cpus, long memoryMb, List<String> features, String gres) {
    public NodeSpec {
      Objects.requireNonNull(name, "name");
      features = List.copyOf(features);
    }
  }

  /**
   * @param cluster cluster name reported in {@code meta}
   * @param jwtKey the HS256 key tokens must be signed with (Slurm's {@code jwt_hs256.key})
   * @param minJobAge how long ended jobs stay listed (Slurm's MinJobAge)
   * @param registrationDelay how long after {@link #registerNode} the "slurmd" registers
   * @param partitionsQuirk answer an incremental node listing with 25.11's 500 "Unable to query
   *     partitions" when nodes changed but partitions did not
   * @param tick how often time limits, purges and scheduling are checked
   * @param port the port, 0 for any free one
   */
  public record Options(
      String cluster,
      byte[] jwtKey,
      Duration minJobAge,
      Duration registrationDelay,
      boolean partitionsQuirk,
      Duration tick,
      Clock clock,
      int port) {
    public static Options defaults(byte[] jwtKey) {
      return new Options(
          "fake",
          jwtKey,
          Duration.ofMinutes(5),
          Duration.ZERO,
          true,
          Duration.ofMillis(100),
          Clock.systemUTC(),
          0);
    }

    public Options withRegistrationDelay(Duration d) {
      return new Options(cluster, jwtKey, minJobAge, d, partitionsQuirk, tick, clock, port);
    }

    public Options withMinJobAge(Duration d) {
      return new Options(cluster, jwtKey, d, registrationDelay, partitionsQuirk, tick, clock, port);
    }

    public Options withClock(Clock c, Duration tickEvery) {
      return new Options(
          cluster, jwtKey, minJobAge, registrationDelay, partitionsQuirk, tickEvery, c, port);
    }

    public Options withPort(int p) {
      return new Options(
          cluster, jwtKey, minJobAge, registrationDelay, partitionsQuirk, tick, clock, p);
    }
  }

  private final Options options;
  private final FakeCluster cluster;
  private final HttpServer server;
  private final ExecutorService http;
  private final ScheduledExecutorService timer;
  private final AtomicLong requests = new AtomicLong();
  private final AtomicLong bytesOut = new AtomicLong();
  private final AtomicBoolean slurmctldDown = new AtomicBoolean();

  private FakeSlurmrestd(Options options, FakeCluster cluster, HttpServer server) {
    this.options = options;
    this.cluster = cluster;
    this.server = server;
    this.http = Executors.newFixedThreadPool(4, daemon("fake-slurmrestd-http"));
    this.timer = Executors.newSingleThreadScheduledExecutor(daemon("fake-slurmctld"));
  }

  /** Starts a fake with {@code partitions} and the static (slurm.conf) nodes {@code nodes}. */
  public static FakeSlurmrestd start(
      Options options, List<FakePartition> partitions, List<NodeSpec> nodes) {
    FakeCluster cluster = new FakeCluster(options.clock(), options.minJobAge());
    partitions.forEach(cluster::addPartition);
    nodes.forEach(n -> cluster.register(n, false));
    // Without TCP_NODELAY the JDK server's separate header and body writes meet the client's
    // delayed ACK: ~40 ms per request. Read once, when the JDK's HttpServer first loads.
    if (System.getProperty("sun.net.httpserver.nodelay") == null) {
      System.setProperty("sun.net.httpserver.nodelay", "true");
    }
    HttpServer server;
    try {
      server =
          HttpServer.create(
              new InetSocketAddress(InetAddress.getLoopbackAddress(), options.port()), 64);
    } catch (IOException e) {
      throw new UncheckedIOException("fake slurmrestd could not bind 127.0.0.1", e);
    }
    FakeSlurmrestd f = new FakeSlurmrestd(options, cluster, server);
    FakeRoutes routes =
        new FakeRoutes(
            cluster,
            new FakeJson(options.cluster()),
            new FakeAuth(options.jwtKey()),
            options.partitionsQuirk(),
            f.requests,
            f.bytesOut,
            f.slurmctldDown);
    server.createContext("/", routes);
    server.setExecutor(f.http);
    server.start();
    long tickMs = Math.max(1, options.tick().toMillis());
    f.timer.scheduleWithFixedDelay(f::tickQuietly, tickMs, tickMs, TimeUnit.MILLISECONDS);
    return f;
  }

  /** {@code http://127.0.0.1:<port>}: what {@code SLURM_REST_URL} takes. */
  public URI url() {
    return URI.create("http://127.0.0.1:" + port());
  }

  /**
   * A client configuration for this fake: its URL and a root token signed with its key, valid for
   * {@code lifespan} from the fake's clock.
   */
  public SlurmClientConfig clientConfig(Duration lifespan) {
    Instant now = options.clock().instant();
    return SlurmClientConfig.fromEnv(
        Map.of(
            "SLURM_REST_URL",
            url().toString(),
            "SLURM_JWT",
            Jwt.mintHs256(options.jwtKey(), "root", now, now.plus(lifespan))));
  }

  public int port() {
    return server.getAddress().getPort();
  }

  /**
   * The kubelet side: a node's slurmd starts and registers after the configured delay, as a dynamic
   * node ({@code slurmd -Z}) in every partition that takes all nodes. A node that is already known
   * re-registers (new slurmd start time, NOT_RESPONDING cleared).
   */
  public void registerNode(
      String name, int cpus, long memoryMb, List<String> features, String gres) {
    NodeSpec spec = new NodeSpec(name, cpus, memoryMb, features, gres);
    long delayMs = options.registrationDelay().toMillis();
    if (delayMs <= 0) {
      cluster.register(spec, true);
    } else {
      timer.schedule(() -> cluster.register(spec, true), delayMs, TimeUnit.MILLISECONDS);
    }
  }

  /** The node's slurmd died without telling slurmctld: it shows NOT_RESPONDING. */
  public void slurmdLost(String name) {
    cluster.slurmdLost(name);
  }

  /**
   * slurmctld stops ({@code true}) or comes back: while it is down every authenticated request is
   * answered as a 25.11.7 slurmrestd answers with slurmctld stopped (status and Slurm error number;
   * at once, where the real one waits ~10 s). The simulated cluster's own clock goes on (time
   * limits, purges).
   */
  public void slurmctldDown(boolean down) {
    slurmctldDown.set(down);
  }

  /** A running job's script exits (jobs run nothing here): COMPLETED for 0, else FAILED. */
  public void completeJob(long id, int exitCode) {
    cluster.complete(id, exitCode);
  }

  /**
   * A node as an in-process observer sees it: what a node listing would say about whether it can
   * serve, without HTTP or JSON (benchmarks sample thousands of nodes every 100 ms).
   *
   * @param flags the node's flags ({@code [DRAIN, NOT_RESPONDING]}, ...)
   */
  public record NodeLook(boolean drain, boolean down, boolean notResponding, String flags) {}

  /** Every node's {@link NodeLook}, by name, read under the cluster's lock. */
  public Map<String, NodeLook> nodeLooks() {
    synchronized (cluster) {
      Map<String, NodeLook> looks = new HashMap<>();
      cluster.nodes.forEach(
          (name, n) ->
              looks.put(
                  name,
                  new NodeLook(
                      n.flags.contains(FakeNode.Flag.DRAIN),
                      n.down,
                      n.flags.contains(FakeNode.Flag.NOT_RESPONDING),
                      (n.down ? "down" : "up") + n.flags)));
      return looks;
    }
  }

  /** Whether slurmctld knows the node (registered and not deleted). */
  public boolean knows(String name) {
    synchronized (cluster) {
      return cluster.nodes.containsKey(name);
    }
  }

  /** HTTP requests answered so far. */
  public long requests() {
    return requests.get();
  }

  /** Response body bytes sent so far. */
  public long bytesOut() {
    return bytesOut.get();
  }

  /** One slurmctld tick now (time limits, purges, scheduling), for tests on a manual clock. */
  void tick() {
    cluster.tick();
  }

  private void tickQuietly() {
    try {
      cluster.tick();
    } catch (RuntimeException e) {
      // A failing tick must not stop the timer; the next one tries again.
      org.slf4j.LoggerFactory.getLogger(FakeSlurmrestd.class).warn("fake slurmctld tick", e);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    timer.shutdownNow();
    http.shutdownNow();
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }
}
