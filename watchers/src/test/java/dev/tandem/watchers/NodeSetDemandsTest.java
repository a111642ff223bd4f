package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.tandem.slurm.SlurmJob;
import dev.tandem.watchers.NodeSetDemands.Gres;
import dev.tandem.watchers.NodeSetDemands.NodeSize;
import dev.tandem.workflows.model.Autoscaling;
import dev.tandem.workflows.model.NodeSetDemand;
import dev.tandem.workflows.model.NodeSetSpecView;
import dev.tandem.workflows.model.PodTemplate;
import dev.tandem.workflows.model.SlurmSettings;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which of Slurm's waiting jobs count for an autoscaled NodeSet, and for how many nodes. */
class NodeSetDemandsTest {
  static final Instant AT = Instant.parse("2026-01-01T00:00:00Z");

  /** An autoscaled NodeSet's view with this Slurm shape. */
  static NodeSetSpecView view(
      List<String> partitions, List<String> features, String gres, int max) {
    return new NodeSetSpecView(
        1,
        "uid-1",
        1,
        new PodTemplate("r1", "{}", new SlurmSettings(partitions, features, gres, null)),
        null,
        null,
        null,
        List.of(),
        null,
        null,
        new Autoscaling(0, max, 600, 5));
  }

  static SlurmJob job(long id, String partition, String state, String reason, SlurmJob.Request r) {
    return new SlurmJob(
        id, "j" + id, null, state, Set.of(), reason, null, List.of(), partition, null, null,
        "alice", 0, AT, null, null, null, null, null, r);
  }

  /** A job waiting for resources on {@code partition}. */
  static SlurmJob waiting(long id, String partition, int nodes, String gres, String features) {
    return job(
        id, partition, "PENDING", "Resources", new SlurmJob.Request(nodes, 4, 0, gres, features));
  }

  private static NodeSetDemand demand(NodeSetSpecView v, SlurmJob... jobs) {
    return NodeSetDemands.of(List.of(jobs), "gpu", v, NodeSize.UNKNOWN, AT);
  }

  private final NodeSetSpecView gpu = view(List.of("gpu"), List.of(), null, 10);

  /** A job holding {@code nodes}, in {@code state}. */
  static SlurmJob holding(long id, String state, String... nodes) {
    return new SlurmJob(
        id,
        "j" + id,
        null,
        state,
        Set.of(),
        "None",
        String.join(",", nodes),
        List.of(nodes),
        "gpu",
        null,
        null,
        "alice",
        0,
        AT,
        AT,
        null,
        null,
        null,
        null,
        new SlurmJob.Request(nodes.length, 1, 0, null, null));
  }

  @Test
  void busyCountsTheNodeSetsOwnNodesThatAJobHoldsFromTheSameListing() {
    NodeSetDemand d =
        demand(
            gpu,
            holding(1, "RUNNING", "gpu-0", "gpu-1"),
            holding(2, "COMPLETING", "gpu-1"), // counted once
            holding(3, "SUSPENDED", "gpu-7"),
            holding(4, "RUNNING", "gpu-x-0", "gpux-1", "cpu-3", "gpu-"), // not gpu's nodes
            holding(5, "COMPLETED", "gpu-2"), // ended: holds nothing
            waiting(6, "gpu", 2, null, null));
    assertEquals(new NodeSetDemand(2, 1, 3, 0, AT), d);
  }

  @Test
  void onlyPendingJobsWaitingForResourcesOnItsPartitionsCount() {
    SlurmJob.Request two = new SlurmJob.Request(2, 1, 0, null, null);
    List<SlurmJob> jobs = new ArrayList<>();
    for (String reason : SlurmQueue.WAITING_FOR_RESOURCES) {
      jobs.add(job(jobs.size(), "gpu", "PENDING", reason, two));
    }
    int counted = jobs.size();
    jobs.add(job(100, "gpu", "PENDING", "Dependency", two));
    jobs.add(job(101, "gpu", "PENDING", "JobHeldUser", two));
    jobs.add(job(102, "gpu", "PENDING", "QOSMaxNodePerUserLimit", two));
    jobs.add(job(103, "gpu", "PENDING", null, two));
    jobs.add(job(104, "gpu", "RUNNING", "None", two));
    jobs.add(job(105, "gpu", "SUSPENDED", "Resources", two));
    jobs.add(job(106, "cpu", "PENDING", "Resources", two));
    jobs.add(job(107, null, "PENDING", "Resources", two));

    NodeSetDemand d = NodeSetDemands.of(jobs, "gpu", gpu, NodeSize.UNKNOWN, AT);

    assertEquals(new NodeSetDemand(2 * counted, counted, 0, 0, AT), d);
  }

  @Test
  void aJobNamingSeveralPartitionsCountsWhenAnyIsTheNodeSets() {
    NodeSetSpecView twoParts = view(List.of("gpu", "batch"), List.of(), null, 10);
    NodeSetDemand d =
        demand(
            twoParts,
            waiting(1, "cpu,gpu", 1, null, null),
            waiting(2, "batch", 1, null, null),
            waiting(3, "cpu, batch", 1, null, null),
            waiting(4, "cpu,debug", 1, null, null),
            waiting(5, "gpu2", 1, null, null));
    assertEquals(3, d.jobs());
    assertEquals(3, d.nodes());
    assertEquals(0, d.unfit(), "a job on other partitions is neither fit nor unfit: not ours");
  }

  @Test
  void aNodeSetWithoutPartitionsHasNoDemand() {
    NodeSetSpecView none = view(List.of(), List.of(), null, 10);
    assertEquals(new NodeSetDemand(0, 0, 0, 0, AT), demand(none, waiting(1, "gpu", 1, null, null)));
  }

  @Test
  void anUnknownNodeCountIsOneNodeAndMoreThanMaxReplicasIsUnfit() {
    NodeSetSpecView max4 = view(List.of("gpu"), List.of(), null, 4);
    NodeSetDemand d =
        demand(
            max4,
            waiting(1, "gpu", 0, null, null), // Slurm did not say: one
            waiting(2, "gpu", 4, null, null), // as wide as the NodeSet may grow: fits
            waiting(3, "gpu", 5, null, null), // wider: never runs here
            job(4, "gpu", "PENDING", "Priority", SlurmJob.Request.UNKNOWN));
    assertEquals(new NodeSetDemand(6, 3, 0, 1, AT), d);
  }

  @Test
  void gresMatchesByNameByTypeWhenTheJobNamesOneAndByCount() {
    record Case(String job, String nodeSet, boolean fits) {}
    List<Case> cases =
        List.of(
            new Case("gpu:2", "gpu:h100:8", true),
            new Case("gpu:8", "gpu:h100:8", true),
            new Case("gpu:9", "gpu:h100:8", false),
            new Case("gpu:h100:2", "gpu:h100:8", true),
            new Case("gpu:a100:1", "gpu:h100:8", false),
            new Case("gpu:h100:1", "gpu:8", false),
            new Case("gpu", "gpu:8,nvme:1", true),
            new Case("gpu:2,nvme:1", "gpu:8,nvme:1", true),
            new Case("gpu:2,nvme:2", "gpu:8,nvme:1", false),
            new Case("gpu:h100:2,nic:1", "gpu:h100:8", false),
            new Case("gpu:1", null, false),
            new Case("gpu:6", "gpu:a100:4,gpu:h100:4", true),
            new Case("gpu:h100:5", "gpu:a100:4,gpu:h100:4", false),
            new Case("gpu:h100:4", "gpu:h100:4(S:0-1)", true),
            new Case("mps:100", "mps:2K", true),
            new Case("gpu:0", null, true),
            new Case(null, "gpu:h100:8", true));
    for (Case c : cases) {
      NodeSetSpecView v = view(List.of("gpu"), List.of(), c.nodeSet(), 10);
      NodeSetDemand d = demand(v, waiting(1, "gpu", 1, c.job(), null));
      assertEquals(c.fits() ? 1 : 0, d.jobs(), c.toString());
      assertEquals(c.fits() ? 0 : 1, d.unfit(), c.toString());
    }
  }

  @Test
  void gresThatCannotBeReadOnEitherSideFits() {
    NodeSetSpecView odd = view(List.of("gpu"), List.of(), "gpu:a:b:8", 10);
    assertEquals(1, demand(odd, waiting(1, "gpu", 1, "gpu:h100:1", null)).jobs());
    assertEquals(1, demand(gpu, waiting(1, "gpu", 1, "gpu::2", null)).jobs());
  }

  @Test
  void gresEntriesAreReadInSlurmConfForm() {
    assertEquals(
        List.of(new Gres("gpu", "h100", 8), new Gres("nvme", null, 1), new Gres("shard", null, 1)),
        Gres.parse("gpu:h100:8(S:0,1),nvme:1,shard"));
    assertEquals(List.of(new Gres("gpu", "h100", 1)), Gres.parse("gpu:h100"));
    assertEquals(List.of(new Gres("mps", null, 2048)), Gres.parse("mps:2k"));
    assertEquals(List.of(new Gres("gpu", null, 2)), Gres.parse("gpu:no_consume:2"));
    assertEquals(List.of(), Gres.parse(" "));
    assertNull(Gres.parse("gpu:a:b"));
    assertNull(Gres.parse("gpu,,nvme:1"));
    assertNull(Gres.parse("gpu:99999999999999999999"));
  }

  @Test
  void aPlainAndListOfFeaturesMustAllBeTheNodeSetsAnythingElseFits() {
    NodeSetSpecView h100 = view(List.of("gpu"), List.of("h100", "ib", "rack-1.a"), null, 10);
    record Case(String constraint, boolean fits) {}
    List<Case> cases =
        List.of(
            new Case("h100", true),
            new Case("h100&ib", true),
            new Case("h100,ib", true),
            new Case(" ib&rack-1.a ", true),
            new Case("a100", false),
            new Case("h100&a100", false),
            new Case("h100,a100", false),
            new Case("H100", false),
            new Case("h100|a100", true),
            new Case("a100|l40", true), // not sure: fits (the class comment says why)
            new Case("[rack1|rack2]", true),
            new Case("a100*2", true),
            new Case("!a100", true),
            new Case("(a100&ib)", true),
            new Case(null, true));
    for (Case c : cases) {
      NodeSetDemand d = demand(h100, waiting(1, "gpu", 1, null, c.constraint()));
      assertEquals(c.fits() ? 1 : 0, d.jobs(), c.toString());
      assertEquals(c.fits() ? 0 : 1, d.unfit(), c.toString());
    }
    assertEquals(
        1, demand(gpu, waiting(1, "gpu", 1, null, "ib")).unfit(), "a NodeSet without features");
  }

  @Test
  void unfitJobsAddNothingAndFitOnesAddTheirNodes() {
    NodeSetSpecView v = view(List.of("gpu"), List.of("h100"), "gpu:h100:8", 8);
    NodeSetDemand d =
        demand(
            v,
            waiting(1, "gpu", 2, "gpu:8", "h100"),
            waiting(2, "gpu", 3, "gpu:h100:4", null),
            waiting(3, "gpu", 16, null, null),
            waiting(4, "gpu", 1, "gpu:a100:1", null),
            waiting(5, "gpu", 1, null, "a100"));
    assertEquals(new NodeSetDemand(5, 2, 0, 3, AT), d);
  }

  @Test
  void aJobAskingMoreCpusOrMemoryPerNodeThanTheNodesHaveIsUnfitOnceTheyAreKnown() {
    List<SlurmJob> jobs =
        List.of(
            job(1, "gpu", "PENDING", "PartitionConfig", new SlurmJob.Request(1, 64, 0, null, null)),
            job(2, "gpu", "PENDING", "Resources", new SlurmJob.Request(2, 8, 16000, null, null)),
            job(3, "gpu", "PENDING", "Resources", new SlurmJob.Request(1, 0, 0, null, null)),
            job(4, "gpu", "PENDING", "Resources", new SlurmJob.Request(1, 1, 900000, null, null)));
    // Nodes not seen yet: unknown, everything fits.
    assertEquals(new NodeSetDemand(5, 4, 0, 0, AT), demand(jobs, NodeSize.UNKNOWN));
    // 8 CPUs, 64 GiB: the 64-CPU and the 900,000-MiB jobs can never start here; what a job does
    // not give fits.
    assertEquals(new NodeSetDemand(3, 2, 0, 2, AT), demand(jobs, new NodeSize(8, 65536)));
    assertEquals(new NodeSetDemand(1, 1, 0, 3, AT), demand(jobs, new NodeSize(4, 8000)));
    // What one side does not know fits.
    assertEquals(new NodeSetDemand(4, 3, 0, 1, AT), demand(jobs, new NodeSize(0, 65536)));
    assertEquals(new NodeSetDemand(4, 3, 0, 1, AT), demand(jobs, new NodeSize(8, 0)));
  }

  private NodeSetDemand demand(List<SlurmJob> jobs, NodeSize size) {
    return NodeSetDemands.of(jobs, "gpu", gpu, size, AT);
  }

  @Test
  void aSlurmNodeIsOfTheNodeSetItsNameEndsAnOrdinalOf() {
    assertEquals("gpu-a", NodeSetDemands.nodeSetOf("gpu-a-12"));
    assertEquals("gpu-2", NodeSetDemands.nodeSetOf("gpu-2-0"));
    assertNull(NodeSetDemands.nodeSetOf("n1"));
    assertNull(NodeSetDemands.nodeSetOf("gpu-"));
    assertNull(NodeSetDemands.nodeSetOf("-3"));
    assertNull(NodeSetDemands.nodeSetOf("gpu-x"));
  }
}
