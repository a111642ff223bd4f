package dev.tandem.slurm.v0038;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmNode;
import dev.tandem.slurm.SlurmTransport.Response;
import dev.tandem.slurm.SlurmUnavailableException;
import dev.tandem.slurm.testing.FakeSlurmTransport;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Parsing of real slurmrestd 22.05.8 answers (captured from scripts/slurm-local.sh). */
class V0038JsonTest {
  private static Map<String, SlurmNode> nodes() {
    return V0038Json.nodes(
            V0038Json.parse(FakeSlurmTransport.resource("/slurm/v0.0.38/nodes.json"), "t"), "t")
        .stream()
        .collect(Collectors.toMap(SlurmNode::name, n -> n));
  }

  /** Jobs are read as a token stream (V0038Jobs); V0038JobsOracleTest holds it to the tree. */
  private static List<SlurmJob> jobs(String body) {
    return V0038Jobs.read(new Response(200, body), "t").jobs();
  }

  @Test
  void parsesNodesWithStatesFlagsReasonsAndGres() {
    Map<String, SlurmNode> nodes = nodes();
    assertEquals(Set.of("n1", "n2", "n3", "n4"), nodes.keySet());
    SlurmNode n1 = nodes.get("n1");
    assertEquals("idle", n1.state());
    assertTrue(n1.flags().isEmpty());
    assertNull(n1.reason(), "empty reason is null");
    assertNull(n1.reasonSetBy(), "22.05 names a user even without a reason");
    assertNull(n1.reasonChangedAt());
    assertEquals(4, n1.cpus());
    assertEquals(4000, n1.realMemoryMb());
    assertEquals(List.of("low", "high"), n1.partitions());
    assertEquals("127.0.0.1", n1.address());
    assertEquals("22.05.8", n1.slurmdVersion());
    assertTrue(n1.slurmdStartTime().isAfter(Instant.parse("2020-01-01T00:00:00Z")));
    SlurmNode n2 = nodes.get("n2");
    assertTrue(n2.drainFlag());
    assertEquals("tandem:manual: canned", n2.reason());
    assertEquals("root", n2.reasonSetBy());
    assertTrue(n2.reasonChangedAt() != null);
    assertEquals("gpu:2", nodes.get("n3").gres());
    assertFalse(nodes.get("n3").down());
  }

  @Test
  void parsesARunningJob() {
    SlurmJob j = jobs(FakeSlurmTransport.resource("/slurm/v0.0.38/job-running.json")).get(0);
    assertEquals("RUNNING", j.state());
    assertEquals("canned-run", j.name());
    assertEquals("c1", j.comment());
    assertEquals("n1", j.nodes());
    assertEquals(List.of("n1"), j.nodeList());
    assertEquals("low", j.partition());
    assertEquals("root", j.userName());
    assertNull(j.account(), "empty account is null");
    assertNull(j.endTime(), "a running job's end_time is an estimate");
    assertTrue(j.startTime() != null);
    assertNull(j.timeLimitMinutes(), "no limit");
    assertNull(j.preemptTime());
    assertTrue(j.active());
    assertFalse(j.finished());
  }

  @Test
  void exitCodesAreDecodedFromTheWaitStatus() {
    assertEquals(0, V0038Json.exitCode(0));
    assertEquals(3, V0038Json.exitCode(3 << 8), "exit 3");
    assertEquals(137, V0038Json.exitCode(9), "SIGKILL");
  }

  @Test
  void parsesACancelledJob() {
    SlurmJob j = jobs(FakeSlurmTransport.resource("/slurm/v0.0.38/job-cancelled.json")).get(0);
    assertEquals("CANCELLED", j.state());
    assertEquals(143, j.exitCode(), "raw wait status 15 (SIGTERM): 128 + 15");
    assertTrue(j.endTime() != null);
    assertTrue(j.finished());
  }

  @Test
  void pendingJobsSayWhatTheyAskFor() {
    // sbatch -p tandem -N 2 (nodes all FUTURE), sbatch -p gpu -N 1 --gres=gpu:2 -c 8, as captured.
    SlurmJob nodes =
        jobs(FakeSlurmTransport.resource("/slurm/v0.0.38/job-pending-nodes.json")).get(0);
    assertTrue(nodes.pending());
    assertEquals(new SlurmJob.Request(2, 1, 0, null, null), nodes.request());
    SlurmJob gres =
        jobs(FakeSlurmTransport.resource("/slurm/v0.0.38/job-pending-gres.json")).get(0);
    assertTrue(gres.pending());
    assertEquals(new SlurmJob.Request(1, 8, 0, "gpu:2", null), gres.request(), "gres:gpu:2");
    SlurmJob running = jobs(FakeSlurmTransport.resource("/slurm/v0.0.38/job-running.json")).get(0);
    assertEquals(
        new SlurmJob.Request(1, 1, 0, null, null), running.request(), "the nodes it holds");
  }

  @Test
  void memoryIsPerNodeOrPerCpuTimesTheCpusAsSlurm2205WritesThem() {
    // 22.05's answers to `sbatch -c 3 --mem=5000` and `sbatch -c 2 --mem-per-cpu=3000`.
    String perNode =
        "{\"jobs\":[{\"job_id\":7,\"job_state\":\"PENDING\",\"node_count\":1,"
            + "\"minimum_cpus_per_node\":3,\"memory_per_node\":5000,\"memory_per_cpu\":null}]}";
    assertEquals(new SlurmJob.Request(1, 3, 5000, null, null), jobs(perNode).get(0).request());
    String perCpu =
        "{\"jobs\":[{\"job_id\":7,\"job_state\":\"PENDING\",\"node_count\":1,"
            + "\"minimum_cpus_per_node\":2,\"memory_per_node\":null,\"memory_per_cpu\":3000}]}";
    assertEquals(new SlurmJob.Request(1, 2, 6000, null, null), jobs(perCpu).get(0).request());
  }

  @Test
  void oddSizesReadAsUnknown() {
    assertEquals(
        new SlurmJob.Request(3, 16, 0, "gpu:h100:2,nic:1", "h100&ib"),
        request("3", "16", "\"gres:gpu:h100:2,gres:nic:1\"", "\"h100&ib\""));
    assertEquals(
        SlurmJob.Request.UNKNOWN,
        request("4294967294", "65534", "\"\"", "\"\""),
        "NO_VAL of 32 and 16 bits");
    assertEquals(SlurmJob.Request.UNKNOWN, request("-1", "0", "null", "null"));
    assertEquals(
        SlurmJob.Request.UNKNOWN,
        request("\"2\"", "\"8\"", "{\"a\":1}", "[\"x\"]"),
        "text is no count; containers are no text");
    assertEquals(
        SlurmJob.Request.UNKNOWN,
        request("123456789012345678901234567890", "1e400", "\"license/x=1\"", "\"\""));
    SlurmJob none = jobs("{\"jobs\":[{\"job_id\":7,\"job_state\":\"PENDING\"}]}").get(0);
    assertEquals(SlurmJob.Request.UNKNOWN, none.request(), "absent fields");
  }

  private static SlurmJob.Request request(
      String nodeCount, String minCpus, String tres, String features) {
    String job =
        "{\"job_id\":7,\"job_state\":\"PENDING\",\"node_count\":%s,\"minimum_cpus_per_node\":%s,"
                .formatted(nodeCount, minCpus)
            + "\"tres_per_node\":%s,\"features\":%s}".formatted(tres, features);
    return jobs("{\"jobs\":[" + job + "]}").get(0).request();
  }

  @Test
  void handlesOddValues() {
    var n =
        V0038Json.JSON
            .createObjectNode()
            .put("job_id", 7)
            .put("job_state", "pending")
            .put("time_limit", 4294967295L)
            .put("start_time", 1_800_000_000L)
            .putNull("exit_code")
            .put("nodes", "");
    SlurmJob j = jobs("{\"jobs\":[" + n + "]}").get(0);
    assertEquals("PENDING", j.state());
    assertNull(j.timeLimitMinutes(), "INFINITE");
    assertNull(j.startTime(), "a pending job's start_time is an estimate");
    assertNull(j.exitCode());
    assertTrue(j.nodeList().isEmpty());
    assertThrows(SlurmUnavailableException.class, () -> V0038Json.parse("<html>", "t"));
    assertThrows(SlurmUnavailableException.class, () -> V0038Json.parse("", "t"));
  }
}
