package dev.tandem.devstack.kubelet;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.devstack.kube.SharedKubernetes;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kubectl logs} of a slurmd pod through the real API server, which proxies {@code pods/log}
 * to the local kubelet's endpoint: the container's whole output, {@code --tail}, {@code
 * --limit-bytes}, and {@code -f}, which ends when the pod is deleted and its process stops.
 */
class KubeletLogsIT {
  @TempDir Path dir;

  @Test
  void kubectlLogsReadsWhatTheContainerWrote() throws Exception {
    Files.writeString(dir.resolve("slurm.conf"), "NodeName=logs-[0-3] State=FUTURE\n");
    Files.writeString(
        dir.resolve("slurm.env"),
        "SLURM_CONF=" + dir.resolve("slurm.conf") + "\nSLURMD_BIN=/usr/sbin/slurmd\n");
    OsProcessLauncher os = new OsProcessLauncher();
    try (PlaneShare plane = new PlaneShare("logs");
        LocalKubelet kubelet =
            LocalKubelet.start(
                plane.client,
                KubeletConfig.defaults()
                    .withNodes(1)
                    .withNodePrefix(plane.nodePrefix)
                    .withSlurmEnvFile(dir.resolve("slurm.env"))
                    .withLogDir(dir.resolve("logs"))
                    .withLauncher(
                        spec ->
                            os.launch(
                                new ProcessSpec(
                                    spec.namespace(),
                                    spec.pod(),
                                    spec.container(),
                                    List.of(
                                        "sh",
                                        "-c",
                                        "echo one; echo two; echo three; exec sleep 300"),
                                    spec.env(),
                                    spec.logFile()))))) {
      plane
          .client
          .pods()
          .resource(
              new PodBuilder()
                  .withNewMetadata()
                  .withName("logs-0")
                  .withLabels(Map.of(KubeletConfig.NODESET_LABEL, "logs"))
                  .endMetadata()
                  .withNewSpec()
                  .withNodeName(plane.node(1))
                  .withTerminationGracePeriodSeconds(5L)
                  .addNewContainer()
                  .withName("slurmd")
                  .withImage("tandem/slurmd:22.05")
                  .endContainer()
                  .endSpec()
                  .build())
          .create();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                Pod p = plane.client.pods().withName("logs-0").get();
                return "Running".equals(p.getStatus().getPhase());
              });
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> kubectl(plane, "logs", "logs-0").equals("one\ntwo\nthree\n"));
      assertEquals("three\n", kubectl(plane, "logs", "logs-0", "--tail", "1"));
      assertEquals("one\ntw", kubectl(plane, "logs", "logs-0", "--limit-bytes", "6"));

      Process follow = start(plane, "logs", "-f", "logs-0", "-c", "slurmd");
      Thread.sleep(1000); // the follow is open; nothing ends it but the container's end
      assertTrue(follow.isAlive(), "kubectl logs -f follows while the container runs");
      plane.client.pods().withName("logs-0").delete();
      assertTrue(follow.waitFor(30, TimeUnit.SECONDS), "the follow ends with the container");
      assertEquals(
          "one\ntwo\nthree\n",
          new String(follow.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  private static Process start(PlaneShare plane, String... args) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(SharedKubernetes.get().kubectl().toString());
    cmd.addAll(
        List.of("--kubeconfig", SharedKubernetes.get().kubeconfig().toString(), "-n", plane.ns));
    cmd.addAll(List.of(args));
    return new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
  }

  private static String kubectl(PlaneShare plane, String... args) throws Exception {
    Process p = start(plane, args);
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(30, TimeUnit.SECONDS), "kubectl " + List.of(args) + " ended");
    return out;
  }
}
