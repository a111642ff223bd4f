package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmNode;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SlurmQueueTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final SlurmQueue queue = new SlurmQueue(registry);

  private static SlurmJob job(long id, String partition, String state, String reason, int nodes) {
    return new SlurmJob(
        id,
        "j" + id,
        null,
        state,
        Set.of(),
        reason,
        null,
        List.of(),
        partition,
        null,
        null,
        "root",
        0,
        Instant.EPOCH,
        null,
        null,
        null,
        null,
        null,
        new SlurmJob.Request(nodes, 1, 0, null, null));
  }

  private static SlurmNode node(String name, String state, String partition, String... flags) {
    return new SlurmNode(
        name,
        state,
        Set.of(flags),
        null,
        null,
        null,
        32,
        0,
        4000,
        "",
        "",
        List.of(partition),
        List.of(),
        "127.0.0.1",
        "vm",
        null,
        null,
        null);
  }

  private Double value(String name, String... tags) {
    Gauge g = registry.find(name).tags(tags).gauge();
    return g == null ? null : g.value();
  }

  @Test
  void jobsAndTheNodesWaitingJobsAskForPerPartition() {
    queue.jobs(
        List.of(
            job(1, "gpu", "PENDING", "Resources", 2),
            job(2, "gpu", "PENDING", "Priority", 3),
            job(3, "gpu", "PENDING", "Dependency", 8), // no node would start it
            job(4, "gpu", "PENDING", "JobHeldUser", 8),
            job(5, "gpu,cpu", "PENDING", "PartitionConfig", 0), // size unknown: one node
            job(6, "gpu", "RUNNING", "None", 4),
            job(7, "cpu", "COMPLETING", "None", 1),
            job(8, "cpu", "COMPLETED", "None", 1))); // ended: not counted
    assertEquals(5.0, value("tandem.slurm.partition.jobs", "partition", "gpu", "state", "pending"));
    assertEquals(1.0, value("tandem.slurm.partition.jobs", "partition", "gpu", "state", "running"));
    assertEquals(1.0, value("tandem.slurm.partition.jobs", "partition", "cpu", "state", "pending"));
    assertEquals(1.0, value("tandem.slurm.partition.jobs", "partition", "cpu", "state", "running"));
    assertEquals(
        6.0, value("tandem.slurm.partition.pending.node.demand", "partition", "gpu"), "2 + 3 + 1");
    assertEquals(1.0, value("tandem.slurm.partition.pending.node.demand", "partition", "cpu"));

    // The next listing replaces the rows: a partition with no job left goes.
    queue.jobs(List.of(job(9, "gpu", "PENDING", "Dependency", 2)));
    assertEquals(1.0, value("tandem.slurm.partition.jobs", "partition", "gpu", "state", "pending"));
    assertEquals(0.0, value("tandem.slurm.partition.pending.node.demand", "partition", "gpu"));
    assertNull(value("tandem.slurm.partition.jobs", "partition", "gpu", "state", "running"));
    assertNull(value("tandem.slurm.partition.jobs", "partition", "cpu", "state", "pending"));
  }

  @Test
  void nodesByStateAsSinfoSummarisesThem() {
    queue.nodes(
        List.of(
            node("a-0", "idle", "gpu"),
            node("a-1", "idle", "gpu"),
            node("a-2", "mixed", "gpu"),
            node("a-3", "allocated", "gpu", "DRAIN"),
            node("a-4", "idle", "gpu", "DRAIN"),
            node("a-5", "idle", "gpu", "DRAIN", "COMPLETING"),
            node("a-6", "idle", "gpu", "NOT_RESPONDING"),
            node("a-7", "future", "gpu"),
            node("a-8", "error", "gpu")));
    assertEquals(2.0, value("tandem.slurm.partition.nodes", "partition", "gpu", "state", "idle"));
    assertEquals(1.0, value("tandem.slurm.partition.nodes", "partition", "gpu", "state", "mixed"));
    assertEquals(
        2.0, value("tandem.slurm.partition.nodes", "partition", "gpu", "state", "draining"));
    assertEquals(
        1.0, value("tandem.slurm.partition.nodes", "partition", "gpu", "state", "drained"));
    assertEquals(2.0, value("tandem.slurm.partition.nodes", "partition", "gpu", "state", "down"));
    assertEquals(1.0, value("tandem.slurm.partition.nodes", "partition", "gpu", "state", "future"));

    queue.clear();
    assertNull(value("tandem.slurm.partition.nodes", "partition", "gpu", "state", "idle"));
  }
}
