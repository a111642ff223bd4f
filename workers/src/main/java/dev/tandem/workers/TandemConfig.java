package dev.tandem.workers;

import dev.tandem.topology.TopologySpec;
import dev.tandem.workflows.model.Tuning;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Set;

/**
 * The worker's configuration, read from environment variables (documented with their defaults in
 * docs/configuration.md). A bad value stops the process at start with a message that names the
 * variable; nothing is guessed.
 */
public record TandemConfig(
    Temporal temporal,
    Http http,
    Watching watching,
    Tuning tuning,
    Worker worker,
    SchedulingSettings scheduling,
    Versioning versioning) {

  /**
   * Where Temporal is, in the Temporal CLI's terms.
   *
   * @param address host:port ({@code TEMPORAL_ADDRESS}, default 127.0.0.1:7233)
   * @param namespace {@code TEMPORAL_NAMESPACE}, default {@code default}
   * @param tlsCert client certificate file ({@code TEMPORAL_TLS_CERT}), for mTLS
   * @param tlsKey client key file ({@code TEMPORAL_TLS_KEY})
   * @param tlsCa CA file to trust ({@code TEMPORAL_TLS_CA}); TLS on with system CAs if only {@code
   *     TEMPORAL_TLS=true}
   * @param tlsServerName server name to verify ({@code TEMPORAL_TLS_SERVER_NAME})
   * @param tls TLS on ({@code TEMPORAL_TLS}, default: on when a cert or CA is given)
   * @param apiKey API key sent as a bearer token ({@code TEMPORAL_API_KEY}, e.g. Temporal Cloud)
   */
  public record Temporal(
      String address,
      String namespace,
      String tlsCert,
      String tlsKey,
      String tlsCa,
      String tlsServerName,
      boolean tls,
      String apiKey) {
    /** {@code host:port} with a port from 1 to 65535; a host may be an [IPv6] literal. */
    private static final java.util.regex.Pattern ADDRESS =
        java.util.regex.Pattern.compile("^([^:\\s/\\[\\]]+|\\[[0-9A-Fa-f:.]+\\]):(\\d{1,5})$");

    /**
     * Checked here, where both the worker's {@code TEMPORAL_ADDRESS} and the CLI's {@code
     * --address} end up: gRPC would take "nonsense" for a host name and fail only after its
     * timeout, as if the server were down.
     */
    public Temporal {
      java.util.regex.Matcher m = ADDRESS.matcher(address == null ? "" : address);
      if (!m.matches()
          || Integer.parseInt(m.group(2)) < 1
          || Integer.parseInt(m.group(2)) > 65535) {
        throw new ConfigException(
            "Temporal address \""
                + address
                + "\" (TEMPORAL_ADDRESS or --address) is not host:port, e.g. 127.0.0.1:7233");
      }
    }

    @Override
    public String toString() {
      return "Temporal[" + address + ", namespace " + namespace + (tls ? ", tls" : "") + "]";
    }
  }

  /** The HTTP endpoints ({@code /metrics}, {@code /healthz}, {@code /readyz}). */
  public record Http(String bind, int port) {}

  /**
   * The watchers.
   *
   * @param leaseDuration {@code TANDEM_LEASE_DURATION}: a lease not renewed for this long may be
   *     taken by another replica
   * @param leaseRenewDeadline {@code TANDEM_LEASE_RENEW_DEADLINE}: a leader that could not renew
   *     for this long stops watching (and competes again)
   * @param leaseRetryPeriod {@code TANDEM_LEASE_RETRY_PERIOD}: how often to try to acquire/renew
   * @param kubernetesProbe {@code TANDEM_KUBERNETES_PROBE_INTERVAL}: how often the Kubernetes API's
   *     reachability is checked
   * @param healthResend {@code TANDEM_CLUSTER_HEALTH_RESEND}: how often NodeSets are told the
   *     current reachability again
   * @param topology {@code TANDEM_TOPOLOGY}: the node labels the Slurm topology is rendered from
   *     (docs/topology.md); off by default
   * @param topologyNamespace where the ConfigMap {@code tandem-topology} is written: the worker's
   *     own namespace ({@code POD_NAMESPACE}), where the chart's slurmctld mounts it
   * @param clusterBudget {@code TANDEM_CLUSTER_BUDGET}: at most this many Kubernetes nodes out of
   *     service through automatic actions cluster-wide (remediations and unhealthy drains); 0 (the
   *     default) for a tenth of the Kubernetes nodes hosting slurmd pods, at least 1
   */
  public record Watching(
      boolean enabled,
      boolean leaderElection,
      String leaseNamespace,
      String leaseName,
      String identity,
      Duration informerResync,
      Duration slurmInterval,
      Duration slurmPendingInterval,
      Duration slurmFullResync,
      Set<String> unhealthyConditions,
      int signalThreads,
      Duration leaseDuration,
      Duration leaseRenewDeadline,
      Duration leaseRetryPeriod,
      Duration kubernetesProbe,
      Duration healthResend,
      TopologySpec topology,
      String topologyNamespace,
      int clusterBudget) {}

  /**
   * The Temporal worker.
   *
   * @param stickyTimeout how long a real Temporal server waits for this worker to take a task of a
   *     workflow it holds in memory (its sticky queue) before it gives the task, with the full
   *     history, to any worker ({@code TANDEM_STICKY_TIMEOUT}, default 5s; 0s turns stickiness
   *     off). Bounds how long a crashed worker delays its workflows; see docs/runbook.md.
   * @param workflowCache how many workflows this worker keeps in memory between their tasks ({@code
   *     TANDEM_WORKFLOW_CACHE}, default 6000). A workflow that is not kept replays its whole
   *     history on its next task: with fewer places than node workflows the cache churns and every
   *     task replays, and a rollout's tasks queue behind the replays. Keep it above the workflows
   *     busy at once (docs/configuration.md).
   * @param maxConcurrentWorkflowTasks workflow tasks run at once ({@code
   *     TANDEM_MAX_CONCURRENT_WORKFLOW_TASKS}, default 200, the SDK's). A task holds its slot while
   *     the local activities it asked for run, so a slot is mostly waiting on Slurm or Kubernetes:
   *     too few slots queue a burst of pods' tasks behind those calls.
   * @param workflowTaskPollers concurrent polls for workflow tasks, shared by the task queue and
   *     this worker's sticky queue ({@code TANDEM_WORKFLOW_TASK_POLLERS}, default 10: twice the
   *     SDK's 5, so that a burst of tasks does not wait for a free poll)
   */
  public record Worker(
      int maxConcurrentActivities,
      int maxConcurrentWorkflowTasks,
      Duration shutdownGrace,
      boolean registerSearchAttributes,
      Duration stickyTimeout,
      int workflowCache,
      int workflowTaskPollers) {}

  /**
   * Temporal's Worker Versioning (docs/upgrading.md, "Worker Versioning"): the worker always polls
   * as version {@code deploymentName}:{@code buildId} of a Worker Deployment. There is no
   * unversioned mode: Tandem's workflow types declare their versioning behaviour, and a server with
   * Worker Versioning refuses every task of such a type from an unversioned worker.
   *
   * @param deploymentName {@code TANDEM_DEPLOYMENT_NAME} (default {@code tandem})
   * @param buildId {@code TANDEM_BUILD_ID} (default: the project version and a hash of the workflow
   *     classes, {@link BuildId})
   * @param setCurrent {@code TANDEM_SET_CURRENT_VERSION} (default true): at start the worker makes
   *     its version the deployment's Current Version (new executions start on it, auto-upgrade ones
   *     move to it); false where something else decides (the Temporal Worker Controller)
   */
  public record Versioning(String deploymentName, String buildId, boolean setCurrent) {
    @Override
    public String toString() {
      return deploymentName + ":" + buildId;
    }
  }

  public static TandemConfig from(Env env) {
    String cert = env.string("TEMPORAL_TLS_CERT", null);
    String key = env.string("TEMPORAL_TLS_KEY", null);
    if ((cert == null) != (key == null)) {
      throw new ConfigException("TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY must be set together");
    }
    readable("TEMPORAL_TLS_CERT", cert);
    readable("TEMPORAL_TLS_KEY", key);
    String ca = env.string("TEMPORAL_TLS_CA", null);
    readable("TEMPORAL_TLS_CA", ca);
    String apiKey = env.string("TEMPORAL_API_KEY", null);
    boolean tls = env.bool("TEMPORAL_TLS", cert != null || ca != null || apiKey != null);
    String address = env.string("TEMPORAL_ADDRESS", "127.0.0.1:7233");
    if (!address.matches("^[^:\\s]+:\\d{1,5}$")) {
      throw new ConfigException("TEMPORAL_ADDRESS=\"" + address + "\" is not host:port");
    }
    Temporal temporal =
        new Temporal(
            address,
            env.string("TEMPORAL_NAMESPACE", "default"),
            cert,
            key,
            ca,
            env.string("TEMPORAL_TLS_SERVER_NAME", null),
            tls,
            apiKey);
    Http http =
        new Http(
            bindAddress(env.string("TANDEM_HTTP_BIND", "0.0.0.0")),
            env.integer("TANDEM_HTTP_PORT", 9090, 0, 65535));
    Watching watching =
        new Watching(
            env.bool("TANDEM_WATCHERS", true),
            env.bool("TANDEM_LEADER_ELECTION", true),
            env.string("TANDEM_LEASE_NAMESPACE", env.string("POD_NAMESPACE", "default")),
            env.string("TANDEM_LEASE_NAME", "tandem-watchers"),
            env.string("TANDEM_IDENTITY", env.string("POD_NAME", hostname())),
            env.duration("TANDEM_INFORMER_RESYNC", Duration.ofMinutes(10), Duration.ofSeconds(10)),
            env.duration(
                "TANDEM_SLURM_POLL_INTERVAL", Duration.ofSeconds(2), Duration.ofMillis(100)),
            pendingPoll(env),
            env.duration("TANDEM_SLURM_FULL_RESYNC", Duration.ofMinutes(1), Duration.ofSeconds(1)),
            env.list("TANDEM_UNHEALTHY_CONDITIONS", Set.of("GpuUnhealthy", "KernelDeadlock")),
            env.integer("TANDEM_SIGNAL_THREADS", 16, 1, 64),
            env.duration("TANDEM_LEASE_DURATION", Duration.ofSeconds(15), Duration.ofSeconds(1)),
            env.duration(
                "TANDEM_LEASE_RENEW_DEADLINE", Duration.ofSeconds(10), Duration.ofMillis(500)),
            env.duration(
                "TANDEM_LEASE_RETRY_PERIOD", Duration.ofSeconds(2), Duration.ofMillis(100)),
            env.duration(
                "TANDEM_KUBERNETES_PROBE_INTERVAL", Duration.ofSeconds(5), Duration.ofMillis(500)),
            env.duration(
                "TANDEM_CLUSTER_HEALTH_RESEND", Duration.ofSeconds(60), Duration.ofSeconds(1)),
            topology(env),
            env.string("POD_NAMESPACE", "default"),
            env.integer("TANDEM_CLUSTER_BUDGET", 0, 0, 1_000_000));
    checkLease(watching);
    Duration resync =
        env.duration("TANDEM_NODE_RESYNC", Duration.ofMinutes(2), Duration.ofSeconds(1));
    Tuning tuning =
        new Tuning(
            env.duration("TANDEM_NODE_POLL", Duration.ofSeconds(5), Duration.ofSeconds(1))
                .toSeconds(),
            resync.toSeconds(),
            env.integer("TANDEM_MAX_HISTORY_EVENTS", 4000, 200, 40_000),
            env.integer("TANDEM_TIMELINE_LIMIT", 100, 10, 10_000),
            env.duration("TANDEM_SLOW_AFTER", Duration.ofMinutes(15), Duration.ofSeconds(1))
                .toSeconds(),
            env.bool("TANDEM_SEARCH_ATTRIBUTES", true),
            env.duration("TANDEM_NODE_REST_MAX", restMaxDefault(resync), resync).toSeconds());
    Worker worker =
        new Worker(
            env.integer("TANDEM_MAX_CONCURRENT_ACTIVITIES", 50, 1, 10_000),
            env.integer("TANDEM_MAX_CONCURRENT_WORKFLOW_TASKS", 200, 2, 10_000),
            env.duration("TANDEM_SHUTDOWN_GRACE", Duration.ofSeconds(30), Duration.ZERO),
            env.bool("TANDEM_REGISTER_SEARCH_ATTRIBUTES", true),
            env.duration("TANDEM_STICKY_TIMEOUT", Duration.ofSeconds(5), Duration.ZERO),
            env.integer("TANDEM_WORKFLOW_CACHE", 6000, 10, 100_000),
            env.integer("TANDEM_WORKFLOW_TASK_POLLERS", 10, 2, 100));
    return new TandemConfig(
        temporal, http, watching, tuning, worker, SchedulingSettings.from(env), versioning(env));
  }

  /**
   * A node at rest re-reads Kubernetes and Slurm itself once in 12 hours by default, at least once
   * per resync: the watchers repair their own failed deliveries within a minute (Slurm) or an
   * informer resync (pods), so this re-read is the last resort, and a shorter one would make the
   * fleet's cost at rest grow with its size (docs/architecture.md, "Safety re-reads at rest").
   */
  static Duration restMaxDefault(Duration resync) {
    Duration twelveHours = Duration.ofHours(12);
    return resync.compareTo(twelveHours) > 0 ? resync : twelveHours;
  }

  /** The lease timings must nest as fabric8 (and client-go) require. */
  private static void checkLease(Watching w) {
    if (w.leaseDuration().compareTo(w.leaseRenewDeadline()) <= 0) {
      throw new ConfigException(
          "TANDEM_LEASE_DURATION ("
              + w.leaseDuration().toMillis()
              + "ms) must be longer than TANDEM_LEASE_RENEW_DEADLINE ("
              + w.leaseRenewDeadline().toMillis()
              + "ms)");
    }
    if (w.leaseRenewDeadline().toMillis() <= w.leaseRetryPeriod().toMillis() * 22 / 10 + 1) {
      throw new ConfigException(
          "TANDEM_LEASE_RENEW_DEADLINE ("
              + w.leaseRenewDeadline().toMillis()
              + "ms) must be longer than 2.2 times TANDEM_LEASE_RETRY_PERIOD ("
              + w.leaseRetryPeriod().toMillis()
              + "ms)");
    }
  }

  /** A file the process must read at start; said now, naming the variable, not at first use. */
  private static void readable(String variable, String file) {
    if (file != null && !java.nio.file.Files.isReadable(java.nio.file.Path.of(file))) {
      throw new ConfigException(
          variable + "=" + file + " cannot be read (no such file, or no access)");
    }
  }

  /** An address to listen on: an IP literal or a name of this host. */
  private static String bindAddress(String v) {
    try {
      InetAddress.getByName(v);
      return v;
    } catch (java.net.UnknownHostException | SecurityException e) {
      throw new ConfigException(
          "TANDEM_HTTP_BIND=\""
              + v
              + "\" is not an address to listen on, e.g. 0.0.0.0 or 127.0.0.1");
    }
  }

  private static String hostname() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (Exception e) {
      return "tandem";
    }
  }

  private static TopologySpec topology(Env env) {
    try {
      return TopologySpec.parse(env.string("TANDEM_TOPOLOGY", null));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
  }

  /** Temporal limits a build id to 255 characters; "." and ":" separate deployment and build id. */
  private static final java.util.regex.Pattern DEPLOYMENT_NAME =
      java.util.regex.Pattern.compile("^[A-Za-z0-9_-][A-Za-z0-9_/-]{0,99}$");

  private static final java.util.regex.Pattern BUILD_ID =
      java.util.regex.Pattern.compile("^[A-Za-z0-9][A-Za-z0-9_.+-]{0,199}$");

  static Versioning versioning(Env env) {
    String name = env.string("TANDEM_DEPLOYMENT_NAME", "tandem").trim();
    if (!DEPLOYMENT_NAME.matcher(name).matches()) {
      throw new ConfigException(
          "TANDEM_DEPLOYMENT_NAME=\""
              + name
              + "\" is not a deployment name: letters, digits, '-', '_' and '/', at most 100");
    }
    String buildId = env.string("TANDEM_BUILD_ID", null);
    if (buildId != null && !buildId.isBlank()) {
      buildId = buildId.trim();
      if (!BUILD_ID.matcher(buildId).matches()) {
        throw new ConfigException(
            "TANDEM_BUILD_ID=\""
                + buildId
                + "\" is not a build id: a letter or digit, then letters, digits, '.', '-', '_',"
                + " '+', at most 200");
      }
    } else {
      buildId = BuildId.defaultId();
    }
    return new Versioning(name, buildId, env.bool("TANDEM_SET_CURRENT_VERSION", true));
  }

  /** 0s turns the faster job listing off; anything shorter than 50ms would hammer slurmrestd. */
  private static Duration pendingPoll(Env env) {
    Duration d = env.duration("TANDEM_SLURM_PENDING_POLL", Duration.ofMillis(250), Duration.ZERO);
    if (!d.isZero() && d.toMillis() < 50) {
      throw new ConfigException(
          "TANDEM_SLURM_PENDING_POLL="
              + d.toMillis()
              + "ms is too short: 0s (off) or at least 50ms");
    }
    return d;
  }
}
