package dev.tandem.slurm.fake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.HttpSlurmTransport;
import dev.tandem.slurm.JobSubmission;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmClient.Listing;
import dev.tandem.slurm.SlurmClientConfig;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmNode;
import dev.tandem.slurm.testing.Await;
import dev.tandem.slurm.v0044.SlurmClientV0044;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A small simulated fleet: 500 dynamic nodes registered through the kubelet hook, one whole-node
 * job each, then a tenth of them drained; listings stay consistent (every job on its own node,
 * every node allocated, drains visible in one incremental listing).
 */
class FakeFleetTest {
  private static final int NODES = 500;
  private static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes();

  @Test
  void fleetOfDynamicNodesRunsOneWholeNodeJobEachAndShowsDrains() {
    try (FakeSlurmrestd fake =
        FakeSlurmrestd.start(
            FakeSlurmrestd.Options.defaults(KEY),
            List.of(FakePartition.all("tandem", 1)),
            List.of())) {
      SlurmClientConfig cfg = fake.clientConfig(Duration.ofSeconds(3600));
      try (SlurmClient c = new SlurmClientV0044(new HttpSlurmTransport(cfg))) {
        for (int i = 0; i < NODES; i++) {
          fake.registerNode("pod-" + i, 64, 512_000, List.of("h100"), "gpu:h100:8");
        }
        for (int i = 0; i < NODES; i++) {
          c.submit(
              JobSubmission.builder("j" + i)
                  .partition("tandem")
                  .exclusive(true)
                  .gresPerNode("gpu:8")
                  .build());
        }
        List<SlurmJob> jobs =
            Await.until(
                "all jobs running",
                Duration.ofSeconds(60),
                () -> c.listJobs(null).items(),
                l -> l.size() == NODES && l.stream().allMatch(SlurmJob::running));
        Set<String> used =
            jobs.stream().flatMap(j -> j.nodeList().stream()).collect(Collectors.toSet());
        assertEquals(NODES, used.size(), "one node per whole-node job");
        Listing<SlurmNode> all = c.listNodes(null);
        assertTrue(all.items().stream().allMatch(n -> "allocated".equals(n.state())));

        Instant since = all.updateTime();
        for (int i = 0; i < NODES / 10; i++) {
          c.drain("pod-" + i, "tandem:test: cordon");
        }
        Listing<SlurmNode> after = c.listNodes(since);
        assertTrue(after.changed());
        assertEquals(NODES / 10, after.items().stream().filter(SlurmNode::drainFlag).count());
      }
    }
  }
}
