package dev.tandem.dev;

import dev.tandem.slurm.local.LocalSlurmScript;
import dev.tandem.topology.TopologyConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The dev stack's stand-in for the chart's ConfigMap mount (docs/topology.md): while the local
 * Slurm runs with topology/tree ({@code TANDEM_SLURM_TOPOLOGY=tree}), the {@code topology.conf} the
 * worker publishes in ConfigMap {@code tandem-topology} is installed into the local Slurm's
 * configuration directory and slurmctld reconfigured ({@code slurm-local.sh topology FILE}), as a
 * cluster's kubelet refreshes the mounted file and an operator or hook runs {@code scontrol
 * reconfigure}. Polls once a second; installs only what changed; a failed install is retried on the
 * next poll.
 */
final class LocalTopology implements AutoCloseable {
  static final Duration EVERY = Duration.ofSeconds(1);

  private final KubernetesClient k8s;
  private final Path script;
  private final Map<String, String> scriptEnv;
  private final Path file;
  private final PrintWriter log;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "tandem-dev-topology");
            t.setDaemon(true);
            return t;
          });
  private volatile String installed;

  private LocalTopology(
      KubernetesClient k8s,
      Path script,
      Map<String, String> scriptEnv,
      Path stateDir,
      PrintWriter log) {
    this.k8s = k8s;
    this.script = script;
    this.scriptEnv = scriptEnv;
    this.file = stateDir.resolve("topology.conf");
    this.log = log;
  }

  /** Started only when the Slurm instance runs topology/tree; null otherwise. */
  static LocalTopology startIfEnabled(
      KubernetesClient k8s,
      Path script,
      Map<String, String> scriptEnv,
      Path stateDir,
      PrintWriter log) {
    if (!"tree".equals(scriptEnv.get("TANDEM_SLURM_TOPOLOGY"))) {
      return null;
    }
    LocalTopology t = new LocalTopology(k8s, script, scriptEnv, stateDir, log);
    t.timer.scheduleWithFixedDelay(t::poll, 0, EVERY.toMillis(), TimeUnit.MILLISECONDS);
    return t;
  }

  /** The topology.conf last installed into Slurm, or null. */
  String installed() {
    return installed;
  }

  private void poll() {
    try {
      ConfigMap cm = k8s.configMaps().inNamespace("default").withName(TopologyConfigMap.NAME).get();
      String conf =
          cm == null || cm.getData() == null ? null : cm.getData().get(TopologyConfigMap.CONF);
      if (conf == null || Objects.equals(conf, installed)) {
        return;
      }
      Files.writeString(file, conf);
      LocalSlurmScript.Result r =
          LocalSlurmScript.run(
              script, scriptEnv, Duration.ofSeconds(60), "topology", file.toString());
      if (r.exitCode() != 0) {
        say("installing the topology into the local Slurm failed: " + r.output().trim());
        return;
      }
      installed = conf;
      say("topology from ConfigMap tandem-topology installed into the local Slurm");
    } catch (IOException | RuntimeException e) {
      say("reading or installing the topology failed (retried): " + e);
    }
  }

  private void say(String what) {
    if (log != null) {
      synchronized (log) {
        log.println("  " + what);
        log.flush();
      }
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
