package dev.tandem.workflows.nodeset;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.model.DrainPolicy;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeReport;
import dev.tandem.workflows.model.NodeSetRef;
import dev.tandem.workflows.model.NodeSetSpecView;
import dev.tandem.workflows.model.PodTemplate;
import dev.tandem.workflows.model.SlurmSettings;
import dev.tandem.workflows.model.UpdateStrategy;
import io.temporal.common.converter.DefaultDataConverter;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a NodeSet carries across continue-as-new grows with its nodes: at {@link
 * NodeSetSpecValidator#MAX_NODES} nodes, every one reporting, it must stay well inside Temporal's
 * payload limit (2 MiB by default, {@code limit.blobSize.error}), or the NodeSet could not continue
 * as new at all.
 */
class NodeSetStateSizeTest {
  private static final int PAYLOAD_LIMIT = 2 * 1024 * 1024;

  @Test
  void theStateOfTheLargestNodeSetFitsInOnePayloadWithRoomToSpare() {
    int n = NodeSetSpecValidator.MAX_NODES;
    NodeSetState s = new NodeSetState();
    s.spec = spec();
    s.latest = s.spec;
    for (int i = 0; i < n; i++) {
      NodeSetState.Entry e = new NodeSetState.Entry();
      e.ordinal = i;
      e.pod = "gpu-h100-" + i;
      e.startRevision = "5f9c2b7d41";
      e.started = true;
      e.lastHeardMillis = 1_790_000_000_000L + i;
      e.updateSentFor = "5f9c2b7d41";
      e.report =
          new NodeReport(
              e.pod,
              i,
              NodePhase.READY,
              "5f9c2b7d41",
              "5f9c2b7d41",
              "allocated",
              true,
              null,
              "gpu-node-rack17-" + i,
              null,
              123);
      s.nodes.put(i, e);
    }
    NodeSetInput in = new NodeSetInput(new NodeSetRef("default", "gpu-h100"), s.spec, null, s);
    int bytes =
        DefaultDataConverter.newDefaultInstance().toPayload(in).orElseThrow().getSerializedSize();
    System.out.printf(
        "NodeSet continue-as-new input at %d nodes: %d bytes (%d per node)%n", n, bytes, bytes / n);
    assertTrue(bytes < PAYLOAD_LIMIT / 2, bytes + " bytes at " + n + " nodes");
  }

  /** A spec with a pod template of a realistic size (about 2 KB, as a GPU slurmd pod has). */
  private static NodeSetSpecView spec() {
    String template =
        "{\"spec\":{\"containers\":[{\"name\":\"slurmd\",\"image\":\"registry.example/slurmd:25.11\","
            + "\"env\":["
            + "{\"name\":\"X\",\"value\":\"0123456789012345678901234567890123456789\"},".repeat(30)
            + "{\"name\":\"Y\",\"value\":\"y\"}]}]}}";
    return new NodeSetSpecView(
        2,
        "uid-ns",
        NodeSetSpecValidator.MAX_NODES,
        new PodTemplate("5f9c2b7d41", template, SlurmSettings.none()),
        UpdateStrategy.rolling("10%"),
        DrainPolicy.waitForever(),
        DrainPolicy.waitForever(),
        List.of());
  }
}
