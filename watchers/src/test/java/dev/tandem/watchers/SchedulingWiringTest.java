package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.workflows.model.SlurmJobView;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A leading replica's watchers as {@link Watching} wires them: a {@code tandem-slurm} pod starts
 * its scheduling workflow, and the Slurm poller routes the pod's placeholder job to that workflow
 * through the scheduling pod watcher's cache.
 */
@ExtendWith(KubeNamespace.class)
class SchedulingWiringTest {
  static KubernetesClient client;

  private Replica replica;

  @BeforeEach
  void start() throws Exception {
    replica = new Replica(client.getConfiguration(), "a");
    replica.watchers.startWatching();
    Wait.until(
        "watching",
        () ->
            replica.watching()
                && replica.watchers.watching() != null
                && replica.watchers.watching().scheduling.synced());
  }

  @AfterEach
  void stop() {
    replica.close();
  }

  @Test
  void aPodsPlaceholderJobReachesThePodsWorkflow() {
    Pod p =
        replica
            .client
            .pods()
            .resource(
                new PodBuilder()
                    .withNewMetadata()
                    .withName("train-0")
                    .endMetadata()
                    .withNewSpec()
                    .withSchedulerName("tandem-slurm")
                    .addNewContainer()
                    .withName("main")
                    .withImage("busybox")
                    .endContainer()
                    .endSpec()
                    .build())
            .create();
    String wf = "schedule/" + client.getNamespace() + "/train-0/" + p.getMetadata().getUid();
    Wait.until(
        "workflow started",
        () -> replica.signals.named("podSchedule").stream().anyMatch(s -> s.target().equals(wf)));

    replica.slurm.putPlaceholder(41, p.getMetadata().getUid(), "RUNNING", List.of("gpu-0"));
    Wait.until(
        "job routed",
        () -> replica.signals.named("jobObserved").stream().anyMatch(s -> s.target().equals(wf)));
    SlurmJobView v =
        (SlurmJobView)
            replica.signals.named("jobObserved").stream()
                .filter(s -> s.target().equals(wf))
                .findFirst()
                .orElseThrow()
                .payload();
    assertEquals(41, v.id());
    assertEquals(List.of("gpu-0"), v.nodes());
  }
}
