package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tandem.workflows.model.DrainCause;
import dev.tandem.workflows.model.DrainReason;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.PodView;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.temporal.common.converter.JacksonJsonPayloadConverter;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Bad-input catalogue (docs/reliability.md): Tandem's annotations with odd values, and {@code
 * tandem.dev/*} annotations Tandem does not know. For a cordon the user sees the reason in Slurm
 * ({@code tandem status}, {@code scontrol show node}, {@code sinfo -R}): each test follows the
 * watcher's drain signal through the JSON a Temporal signal carries into the node workflow's
 * reading of it ({@link NodeCommand#fromJson}) and the reason Tandem sets in Slurm. Unknown {@code
 * tandem.dev/*} annotations are ignored, like any annotation no controller owns: they send nothing.
 */
@ExtendWith(KubeNamespace.class)
class BadAnnotationTest extends WatcherTestBase {
  static KubernetesClient client;

  private static final ObjectMapper TEMPORAL = JacksonJsonPayloadConverter.newDefaultObjectMapper();

  private PodWatcher pods;
  private K8sNodeWatcher nodes;

  @BeforeEach
  void start() {
    pods = podWatcher(client);
    nodes = nodeWatcher(client, pods, Set.of(), RESYNC);
    pods.onPodChanged(nodes::podChanged);
    client.nodes().resource(K8sObjects.node("k1")).create();
    client.pods().resource(K8sObjects.slurmdPod("gpu-0", "k1").build()).create();
    pods.start();
    nodes.start();
    Wait.until("pod cached", () -> pods.podsOn("k1").size() == 1);
    // The first pass sends the pod's state (podObserved) and the cordon owner's undrain (the
    // unhealthy drain is the budget's): let it finish.
    Wait.until(
        "first pass sent",
        () -> signals.named("undrain").size() == 1 && !signals.named("podObserved").isEmpty());
    signals.clear();
  }

  @AfterEach
  void stop() {
    nodes.close();
    pods.close();
  }

  /** Cordons k1 with these annotations; returns the Slurm reason the drain ends up as. */
  private String slurmReasonForCordon(Map<String, String> annotations) throws Exception {
    String patch =
        TEMPORAL.writeValueAsString(
            Map.of(
                "metadata", Map.of("annotations", annotations),
                "spec", Map.of("unschedulable", true)));
    client.nodes().withName("k1").patch(PatchContext.of(PatchType.JSON_MERGE), patch);
    Wait.until("drain", () -> !signals.named("drain").isEmpty());
    List<RecordingSignals.Sent> drains = signals.named("drain");
    assertEquals(1, drains.size(), drains.toString());
    assertEquals("node/" + client.getNamespace() + "/gpu-0", drains.get(0).target());
    // What Temporal carries and the node workflow reads (NodeCommand.fromJson).
    byte[] wire = TEMPORAL.writeValueAsBytes(drains.get(0).payload());
    NodeCommand received = TEMPORAL.readValue(wire, NodeCommand.class);
    assertEquals(null, received.rejected());
    assertEquals("k8s-cordon", received.owner());
    return DrainReason.format(DrainCause.K8S_CORDON, received.reason());
  }

  @Test
  void emptyCordonReason() throws Exception {
    assertEquals(
        "tandem:k8s-cordon: node k1 cordoned in Kubernetes",
        slurmReasonForCordon(Map.of("tandem.dev/cordon-reason", "")));
  }

  @Test
  void blankCordonReason() throws Exception {
    assertEquals(
        "tandem:k8s-cordon: node k1 cordoned in Kubernetes",
        slurmReasonForCordon(Map.of("tandem.dev/cordon-reason", " \n\t ")));
  }

  /** Slurm would store the newlines and break {@code scontrol show node} and {@code sinfo -R}. */
  @Test
  void cordonReasonWithNewlines() throws Exception {
    assertEquals(
        "tandem:k8s-cordon: RMA 42: disk full on /scratch",
        slurmReasonForCordon(
            Map.of("tandem.dev/cordon-reason", "RMA 42:\r\n  disk full\n\ton /scratch\n")));
  }

  /** An annotation may hold up to 256 KB; Slurm's reason (and the node's history) gets 200. */
  @Test
  void veryLongCordonReason() throws Exception {
    String reason = slurmReasonForCordon(Map.of("tandem.dev/cordon-reason", "y".repeat(100_000)));
    assertEquals("tandem:k8s-cordon: " + "y".repeat(181), reason);
  }

  /** A misspelled annotation is not read: the default reason shows, and says it was a cordon. */
  @Test
  void misspelledCordonReasonAnnotationIsIgnored() throws Exception {
    assertEquals(
        "tandem:k8s-cordon: node k1 cordoned in Kubernetes",
        slurmReasonForCordon(Map.of("tandem.dev/cordon-reasn", "RMA 42")));
  }

  /**
   * Tandem reads no annotation on pods: an unknown one (or a node's annotation put on a pod) sends
   * no drain, undrain or delete.
   */
  @Test
  void unknownTandemAnnotationOnAPodChangesNothing() {
    client
        .pods()
        .withName("gpu-0")
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"metadata\":{\"annotations\":{\"tandem.dev/drain\":\"true\","
                + "\"tandem.dev/cordon-reason\":\"not on pods\"}}}");
    // A change the watcher does act on, after it: once that arrives, the first was seen too.
    client
        .pods()
        .withName("gpu-0")
        .subresource("status") // as the kubelet: the main resource ignores status changes
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"status\":{\"phase\":\"Running\"}}");
    Wait.until(
        "the later pod change observed",
        () ->
            signals
                    .matching(
                        s ->
                            s.signal().equals("podObserved")
                                && "Running".equals(((PodView) s.payload()).phase()))
                    .size()
                == 1);
    assertEquals(
        List.of("podObserved"),
        signals.all().stream().map(RecordingSignals.Sent::signal).distinct().toList());
  }

  /**
   * On a Kubernetes node, only tandem.dev/cordon-reason is read, and only while cordoned. The
   * cordon that follows shows that the informer had delivered the first change: it caused nothing.
   */
  @Test
  void unknownTandemAnnotationOnANodeChangesNothing() throws Exception {
    client
        .nodes()
        .withName("k1")
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"metadata\":{\"annotations\":{\"tandem.dev/drain\":\"now\"}}}");
    assertEquals(
        "tandem:k8s-cordon: node k1 cordoned in Kubernetes", slurmReasonForCordon(Map.of()));
    assertEquals(
        List.of("drain"), signals.all().stream().map(RecordingSignals.Sent::signal).toList());
  }
}
