package dev.tandem.devstack.kubelet;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * Settings of the local kubelet.
 *
 * @param nodes how many nodes ({@code local-1..N})
 * @param nodePrefix node name prefix ({@code local-})
 * @param capacity per-node capacity (cpu, memory, pods), also the allocatable amount
 * @param slurmEnvFile the env file of the local Slurm ({@code $TANDEM_SLURM_DIR/slurm.env})
 * @param logDir where container output goes ({@code <ns>_<pod>_<container>.log})
 * @param launcher starts container processes
 * @param backoffInitial first restart delay of a crashing container (the kubelet's is 10 s)
 * @param backoffMax restart delay cap (the kubelet's is 5 min)
 * @param resync how often every pod is looked at again (retries, slurm.conf changes)
 * @param maxGrace upper bound on a termination grace period, so stops stay bounded
 */
public record KubeletConfig(
    int nodes,
    String nodePrefix,
    Map<String, String> capacity,
    Path slurmEnvFile,
    Path logDir,
    ProcessLauncher launcher,
    Duration backoffInitial,
    Duration backoffMax,
    Duration resync,
    Duration maxGrace) {

  public static final String LOCAL_LABEL = "tandem.dev/local";
  public static final String NODESET_LABEL = "tandem.dev/nodeset";

  /**
   * Per-node capacity of the dev stack's nodes, {@code name=quantity,...} (see docs/kube-local.md).
   */
  public static final String RESOURCES_ENV = "TANDEM_DEV_NODE_RESOURCES";

  public static final String DEFAULT_RESOURCES = "cpu=8,memory=32Gi,pods=110,nvidia.com/gpu=4";

  /** Parses {@code cpu=8,memory=32Gi,nvidia.com/gpu=4}; a bad entry fails with what is wrong. */
  public static Map<String, String> resources(String spec) {
    Map<String, String> out = new java.util.LinkedHashMap<>();
    for (String part : spec.split(",")) {
      String p = part.trim();
      if (p.isEmpty()) {
        continue;
      }
      int eq = p.indexOf('=');
      if (eq <= 0 || eq == p.length() - 1) {
        throw new IllegalArgumentException(
            RESOURCES_ENV + ": expected name=quantity, got " + "\"" + p + "\"");
      }
      String q = p.substring(eq + 1).trim();
      try {
        io.fabric8.kubernetes.api.model.Quantity.getAmountInBytes(
            new io.fabric8.kubernetes.api.model.Quantity(q));
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(RESOURCES_ENV + ": bad quantity " + "\"" + q + "\"", e);
      }
      out.put(p.substring(0, eq).trim(), q);
    }
    return out;
  }

  public KubeletConfig {
    if (nodes < 1 || nodes > 1000) {
      throw new IllegalArgumentException("nodes must be 1..1000, got " + nodes);
    }
    if (nodePrefix == null || nodePrefix.isEmpty()) {
      throw new IllegalArgumentException("nodePrefix must not be empty");
    }
    capacity = Map.copyOf(capacity);
    if (backoffInitial.isNegative() || backoffMax.compareTo(backoffInitial) < 0) {
      throw new IllegalArgumentException("need 0 <= backoffInitial <= backoffMax");
    }
    if (resync.isZero() || resync.isNegative()) {
      throw new IllegalArgumentException("resync must be positive");
    }
  }

  /** Defaults for {@code tandem dev}: 3 nodes, real processes, the kubelet's own backoff. */
  public static KubeletConfig defaults() {
    Path envFile = SlurmSetup.defaultEnvFile(System.getenv());
    return new KubeletConfig(
        3,
        "local-",
        resources(System.getenv().getOrDefault(RESOURCES_ENV, DEFAULT_RESOURCES)),
        envFile,
        envFile.getParent().resolve("log").resolve("kubelet"),
        new OsProcessLauncher(),
        Duration.ofSeconds(10),
        Duration.ofMinutes(5),
        Duration.ofSeconds(10),
        Duration.ofMinutes(2));
  }

  public KubeletConfig withNodes(int n) {
    return new KubeletConfig(
        n,
        nodePrefix,
        capacity,
        slurmEnvFile,
        logDir,
        launcher,
        backoffInitial,
        backoffMax,
        resync,
        maxGrace);
  }

  public KubeletConfig withNodePrefix(String prefix) {
    return new KubeletConfig(
        nodes,
        prefix,
        capacity,
        slurmEnvFile,
        logDir,
        launcher,
        backoffInitial,
        backoffMax,
        resync,
        maxGrace);
  }

  public KubeletConfig withLauncher(ProcessLauncher l) {
    return new KubeletConfig(
        nodes,
        nodePrefix,
        capacity,
        slurmEnvFile,
        logDir,
        l,
        backoffInitial,
        backoffMax,
        resync,
        maxGrace);
  }

  public KubeletConfig withSlurmEnvFile(Path f) {
    return new KubeletConfig(
        nodes,
        nodePrefix,
        capacity,
        f,
        logDir,
        launcher,
        backoffInitial,
        backoffMax,
        resync,
        maxGrace);
  }

  public KubeletConfig withLogDir(Path d) {
    return new KubeletConfig(
        nodes,
        nodePrefix,
        capacity,
        slurmEnvFile,
        d,
        launcher,
        backoffInitial,
        backoffMax,
        resync,
        maxGrace);
  }

  public KubeletConfig withBackoff(Duration initial, Duration max) {
    return new KubeletConfig(
        nodes,
        nodePrefix,
        capacity,
        slurmEnvFile,
        logDir,
        launcher,
        initial,
        max,
        resync,
        maxGrace);
  }

  public KubeletConfig withResync(Duration r) {
    return new KubeletConfig(
        nodes,
        nodePrefix,
        capacity,
        slurmEnvFile,
        logDir,
        launcher,
        backoffInitial,
        backoffMax,
        r,
        maxGrace);
  }

  public KubeletConfig withCapacity(Map<String, String> c) {
    return new KubeletConfig(
        nodes,
        nodePrefix,
        c,
        slurmEnvFile,
        logDir,
        launcher,
        backoffInitial,
        backoffMax,
        resync,
        maxGrace);
  }

  public KubeletConfig withMaxGrace(Duration g) {
    return new KubeletConfig(
        nodes,
        nodePrefix,
        capacity,
        slurmEnvFile,
        logDir,
        launcher,
        backoffInitial,
        backoffMax,
        resync,
        g);
  }

  /** Where a container's output goes, or null without a log dir. */
  public Path logFile(String namespace, String pod, String container) {
    return logDir == null ? null : logDir.resolve(namespace + "_" + pod + "_" + container + ".log");
  }

  public String nodeName(int i) {
    return nodePrefix + i;
  }
}
