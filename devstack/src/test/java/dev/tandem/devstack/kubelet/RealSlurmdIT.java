package dev.tandem.devstack.kubelet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A slurmd pod on the real local Slurm (scripts/slurm-local.sh): the kubelet starts {@code slurmd
 * -D -N <pod>} for a declared pool node, slurmctld sees it register, a reboot of its node
 * (remediation's annotation) restarts it and it registers again, and deleting the pod stops it.
 * Skipped unless {@code $TANDEM_SLURM_DIR/slurm.env} exists and the run opts in with {@code
 * TANDEM_SLURMD_IT=1} (or {@code -Dtandem.slurmd.it=true}): the local Slurm is shared by everyone
 * on the machine and its owner's tests start and stop it, so this test must not run by surprise. It
 * uses a pool node that Slurm shows as FUTURE (not brought up by anyone else), preferring the
 * {@code wt} pool.
 */
class RealSlurmdIT {
  @Test
  void slurmdPodRegistersWithSlurmctldAndStopsOnDelete(@TempDir Path logs) throws Exception {
    Path env = SlurmSetup.defaultEnvFile(System.getenv());
    assumeTrue(
        Files.isRegularFile(env),
        "no " + env + ": start the local Slurm (scripts/slurm-local.sh start) to run this test");
    assumeTrue(
        "1".equals(System.getenv("TANDEM_SLURMD_IT")) || Boolean.getBoolean("tandem.slurmd.it"),
        "real-slurmd test skipped: set TANDEM_SLURMD_IT=1 to run it against " + env);
    SlurmSetup.Snapshot slurm = new SlurmSetup(env).get();
    assumeTrue(slurm.problem() == null, String.valueOf(slurm.problem()));
    String node = null;
    for (String candidate :
        slurm.nodeNames().stream()
            .sorted((a, b) -> Boolean.compare(b.startsWith("wt-"), a.startsWith("wt-")))
            .toList()) {
      if (candidate.contains("-") && scontrol(slurm, candidate).contains("State=FUTURE")) {
        node = candidate;
        break;
      }
    }
    assumeTrue(node != null, "no FUTURE pool node free in " + slurm.slurmConf());
    String prefix = node.substring(0, node.lastIndexOf('-'));
    try (PlaneShare plane = new PlaneShare("slurmd")) {
      KubernetesClient client = plane.client;
      try (LocalKubelet kubelet =
          LocalKubelet.start(
              client,
              KubeletConfig.defaults()
                  .withNodes(1)
                  .withNodePrefix(plane.nodePrefix)
                  .withSlurmEnvFile(env)
                  .withLogDir(logs))) {
        client
            .pods()
            .resource(
                new PodBuilder()
                    .withNewMetadata()
                    .withName(node)
                    .withLabels(Map.of(KubeletConfig.NODESET_LABEL, prefix))
                    .endMetadata()
                    .withNewSpec()
                    .withNodeName(plane.node(1))
                    .addNewContainer()
                    .withName("slurmd")
                    .withImage("tandem/slurmd:22.05")
                    .endContainer()
                    .endSpec()
                    .build())
            .create();
        long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        String state = "";
        while (System.nanoTime() < end) {
          Pod p = client.pods().withName(node).get();
          state = scontrol(slurm, node);
          if ("Running".equals(p.getStatus().getPhase()) && state.contains("State=IDLE")) {
            break;
          }
          Thread.sleep(250);
        }
        assertTrue(
            state.contains("State=IDLE"),
            "slurmctld sees "
                + node
                + ": "
                + state
                + "\npod: "
                + client.pods().withName(node).get().getStatus()
                + "\nslurmd output: "
                + tail(logs));
        long pid =
            Long.parseLong(
                client
                    .pods()
                    .withName(node)
                    .get()
                    .getStatus()
                    .getContainerStatuses()
                    .get(0)
                    .getContainerID()
                    .replace("local://", ""));
        ProcessHandle first = ProcessHandle.of(pid).orElse(null);
        assertNotNull(first, "slurmd runs as pid " + pid);

        // Remediation's reboot (annotation action): the slurmd process is stopped and started
        // again for real, and registers with slurmctld again.
        client
            .nodes()
            .withName(plane.node(1))
            .edit(
                n -> {
                  n.getMetadata()
                      .setAnnotations(
                          new java.util.HashMap<>(
                              Map.of(
                                  dev.tandem.workflows.Names.ANNOTATION_REBOOT_REQUESTED, "r1")));
                  return n;
                });
        first.onExit().get(40, TimeUnit.SECONDS);
        long rebooted = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        long newPid = pid;
        while (System.nanoTime() < rebooted) {
          var cs = client.pods().withName(node).get().getStatus();
          String id = cs.getContainerStatuses().get(0).getContainerID();
          state = scontrol(slurm, node);
          if (id != null
              && !id.equals("local://" + pid)
              && cs.getContainerStatuses().get(0).getRestartCount() == 1
              && state.contains("State=IDLE")
              && !state.contains("NOT_RESPONDING")) {
            newPid = Long.parseLong(id.replace("local://", ""));
            break;
          }
          Thread.sleep(250);
        }
        assertTrue(newPid != pid, "slurmd restarted by the reboot; slurmctld sees " + state);
        assertEquals(
            "r1",
            client
                .nodes()
                .withName(plane.node(1))
                .get()
                .getMetadata()
                .getAnnotations()
                .get(dev.tandem.workflows.Names.ANNOTATION_REBOOTED));
        ProcessHandle slurmd = ProcessHandle.of(newPid).orElse(null);
        assertNotNull(slurmd, "slurmd runs again as pid " + newPid);
        client.pods().withName(node).delete();
        slurmd.onExit().get(40, TimeUnit.SECONDS);
        long gone = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (client.pods().withName(node).get() != null && System.nanoTime() < gone) {
          Thread.sleep(100);
        }
        assertEquals(null, client.pods().withName(node).get());
      }
    }
  }

  private static String tail(Path logs) throws java.io.IOException {
    StringBuilder b = new StringBuilder();
    try (var files = Files.list(logs)) {
      for (Path f : files.toList()) {
        String all = Files.readString(f);
        b.append(f.getFileName())
            .append(": ")
            .append(all.substring(Math.max(0, all.length() - 2000)));
      }
    }
    return b.toString();
  }

  private static String scontrol(SlurmSetup.Snapshot slurm, String node) throws Exception {
    Map<String, String> env = SlurmSetup.parseEnv(Files.readAllLines(slurm.envFile()));
    ProcessBuilder pb =
        // -F (--future): Slurm 22.05 hides FUTURE nodes from "show node" without it.
        new ProcessBuilder(
            env.getOrDefault("SCONTROL_BIN", "scontrol"), "-F", "show", "node", node);
    pb.environment().put("SLURM_CONF", slurm.slurmConf().toString());
    String tokenFile = env.get("SLURM_TOKEN_FILE");
    if (tokenFile != null && Files.isReadable(Path.of(tokenFile))) {
      // Works without munge too (see docs/slurm-client.md).
      pb.environment().put("SLURM_JWT", Files.readString(Path.of(tokenFile)).trim());
    }
    pb.redirectErrorStream(true);
    Process p = pb.start();
    if (!p.waitFor(10, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      return "scontrol timed out";
    }
    return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
  }
}
