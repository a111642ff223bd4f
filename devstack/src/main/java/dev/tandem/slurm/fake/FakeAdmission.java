package dev.tandem.slurm.fake;

import java.util.Map;

/** What slurmctld refuses at submit time, with 25.11's error numbers. */
final class FakeAdmission {
  private FakeAdmission() {}

  /** Throws the refusal for {@code r}, if any. */
  static void check(FakeCluster c, FakeJob.JobRequest r) {
    if (r.partition() == null || !c.partitions.containsKey(r.partition())) {
      throw FakeSlurmError.refused(
          2000, "Invalid partition name specified", "Batch job submission failed");
    }
    if (r.qos() != null && !FakeAccounting.QOS.containsKey(r.qos())) {
      throw FakeSlurmError.refused(
          2066, "Invalid qos specification", "Batch job submission failed");
    }
    if (r.account() != null && !FakeAccounting.ACCOUNTS.contains(r.account())) {
      throw FakeSlurmError.refused(
          2045,
          "Invalid account or account/partition combination specified",
          "Batch job submission failed");
    }
    if (r.reservation() != null) {
      // The fake has no reservations.
      throw FakeSlurmError.refused(
          2053, "Requested reservation is invalid", "Batch job submission failed");
    }
    for (String n : r.required()) {
      if (!c.nodes.containsKey(n)) {
        throw FakeSlurmError.refused(
            2018, "Invalid node name specified", "Batch job submission failed");
      }
    }
    FakePartition p = c.partitions.get(r.partition());
    if (r.nodeCount() > c.partitionSize(p)) {
      // More nodes than the partition has: slurmctld (EnforcePartLimits=NO, its default) takes the
      // job and keeps it pending, reason PartitionNodeLimit, until enough nodes exist (22.05 does).
      return;
    }
    long possible =
        c.nodes.values().stream()
            .filter(n -> p.holds(n.name) && !r.excluded().contains(n.name))
            .filter(n -> n.cpus >= r.cpusPerNode() && n.memoryMb >= r.memoryMbPerNode())
            .filter(n -> FakeScheduler.gresFits(n, r.gres(), Map.of()))
            .count();
    if (possible < r.nodeCount()) {
      throw FakeSlurmError.refused(
          2014, "Requested node configuration is not available", "Batch job submission failed");
    }
  }
}
