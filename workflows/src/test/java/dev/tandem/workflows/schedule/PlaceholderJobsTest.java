package dev.tandem.workflows.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PlaceholderJobsTest {
  static final SchedulingConfig CONFIG =
      new SchedulingConfig(
          Map.of(
              "nvidia.com/gpu", "gpu",
              "nvidia.com/gpu=A100", "gpu:a100",
              "example.com/fpga", "fpga"),
          "nvidia.com/gpu.product",
          Map.of(
              "high", new PriorityMapping("high", -100),
              "low", new PriorityMapping(null, 500)),
          "batch",
          Map.of("team", "physics"),
          60,
          5);

  static PodRequest pod(
      Map<String, String> requests,
      Map<String, String> annotations,
      Map<String, String> selector,
      String priorityClass) {
    return new PodRequest(
        "team", "trainer", "u-1", requests, annotations, selector, priorityClass, 10L, null);
  }

  @ParameterizedTest
  @CsvSource({"500m, 1", "2, 2", "1.5, 2", "1, 1", "100m, 1", "2000m, 2", "1e1, 10", "3k, 3000"})
  void cpusRoundUp(String q, long cpus) {
    assertEquals(cpus, Quantities.cpus(q));
  }

  @ParameterizedTest
  @CsvSource({
    "1Gi, 1024",
    "512Mi, 512",
    "1G, 954",
    "1M, 1",
    "1, 1",
    "1048576, 1",
    "1048577, 2",
    "1.5Gi, 1536",
    "2Ti, 2097152",
    "128974848, 123",
    "129e6, 124"
  })
  void memoryRoundsUpToMib(String q, long mb) {
    assertEquals(mb, Quantities.memoryMb(q));
  }

  @Test
  void notQuantities() {
    for (String q : new String[] {"", "1Gb", "1 Gi", "Gi", "1..2", "0x10", "1e"}) {
      assertNull(Quantities.parse(q), q);
    }
  }

  @ParameterizedTest
  @CsvSource({
    "30, 30",
    "30:30, 31",
    "1:00:00, 60",
    "1:00:01, 61",
    "2-0, 2880",
    "1-2, 1560",
    "1-2:30, 1590",
    "1-2:30:1, 1591",
    "0:1, 1"
  })
  void slurmTimeFormats(String s, long minutes) {
    assertEquals(minutes, SlurmTime.minutes(s));
  }

  @Test
  void aNamespacesPodsAreChargedToItsAccountUnlessAPodNamesOne() {
    Map<String, String> req = Map.of("cpu", "1", "memory", "1Gi");
    assertEquals(
        "physics", PlaceholderJobs.from(pod(req, Map.of(), Map.of(), null), CONFIG).account());
    assertEquals(
        "ml",
        PlaceholderJobs.from(pod(req, Map.of("tandem.dev/account", "ml"), Map.of(), null), CONFIG)
            .account());
    PodRequest elsewhere =
        new PodRequest("other", "p", "u-2", req, Map.of(), Map.of(), null, 10L, null);
    assertEquals(null, PlaceholderJobs.from(elsewhere, CONFIG).account(), "the user's default");
  }

  @Test
  void singlePodJob() {
    PlaceholderJob j =
        PlaceholderJobs.from(
            pod(Map.of("cpu", "500m", "memory", "1G"), Map.of(), Map.of(), null), CONFIG);
    assertEquals("tandem-pod-u-1", j.name());
    assertEquals("tandem.dev/pod-uid=u-1 pod=team/trainer", j.comment());
    assertEquals("u-1", j.podUid());
    assertEquals(1, j.nodes());
    assertEquals(1, j.cpusPerNode());
    assertEquals(954, j.memoryMbPerNode());
    assertNull(j.gresPerNode());
    assertEquals("batch", j.partition(), "the configured default partition");
    assertNull(j.qos());
    assertEquals("physics", j.account(), "the namespace's account");
    assertNull(j.timeLimitMinutes());
    assertNull(j.reservation());
    assertEquals(Exclusivity.NONE, j.exclusivity(), "shared by default");
    assertNull(j.nice());
    assertFalse(j.requeue());
  }

  @Test
  void gpusByModel() {
    PlaceholderJob j =
        PlaceholderJobs.from(
            pod(
                Map.of("cpu", "2", "memory", "512Mi", "nvidia.com/gpu", "2"),
                Map.of(),
                Map.of("nvidia.com/gpu.product", "A100"),
                null),
            CONFIG);
    assertEquals("gpu:a100:2", j.gresPerNode());
  }

  @Test
  void gpusOfAModelWithoutEntryFallBackToThePlainEntry() {
    PlaceholderJob j =
        PlaceholderJobs.from(
            pod(
                Map.of(
                    "cpu", "2", "memory", "512Mi", "nvidia.com/gpu", "1", "example.com/fpga", "3"),
                Map.of(),
                Map.of("nvidia.com/gpu.product", "T4"),
                null),
            CONFIG);
    assertEquals("fpga:3,gpu:1", j.gresPerNode());
  }

  @Test
  void zeroGpusAndEphemeralStorageAreNoGres() {
    PlaceholderJob j =
        PlaceholderJobs.from(
            pod(
                Map.of(
                    "cpu", "1", "memory", "1Gi", "nvidia.com/gpu", "0", "ephemeral-storage", "1Gi"),
                Map.of(),
                Map.of(),
                null),
            CONFIG);
    assertNull(j.gresPerNode());
  }

  @Test
  void annotationsWin() {
    PlaceholderJob j =
        PlaceholderJobs.from(
            pod(
                Map.of("cpu", "1", "memory", "1Gi"),
                Map.of(
                    "tandem.dev/partition", "gpu",
                    "tandem.dev/qos", "normal",
                    "tandem.dev/account", "ml",
                    "tandem.dev/time-limit", "1:30:00",
                    "tandem.dev/reservation", "maint",
                    "tandem.dev/exclusive", "exclusive"),
                Map.of(),
                "high"),
            CONFIG);
    assertEquals("gpu", j.partition());
    assertEquals("normal", j.qos(), "annotation over PriorityClass");
    assertEquals(-100, j.nice(), "nice still from the PriorityClass");
    assertEquals("ml", j.account(), "annotation over the namespace's account");
    assertEquals(90L, j.timeLimitMinutes());
    assertEquals("maint", j.reservation());
    assertEquals(Exclusivity.EXCLUSIVE, j.exclusivity());
  }

  @Test
  void priorityClassMapsToQosAndNice() {
    PlaceholderJob high =
        PlaceholderJobs.from(
            pod(Map.of("cpu", "1", "memory", "1Gi"), Map.of(), Map.of(), "high"), CONFIG);
    assertEquals("high", high.qos());
    assertEquals(-100, high.nice());
    PlaceholderJob low =
        PlaceholderJobs.from(
            pod(Map.of("cpu", "1", "memory", "1Gi"), Map.of(), Map.of(), "low"), CONFIG);
    assertNull(low.qos());
    assertEquals(500, low.nice());
    PlaceholderJob unmapped =
        PlaceholderJobs.from(
            pod(Map.of("cpu", "1", "memory", "1Gi"), Map.of(), Map.of(), "system-cluster-critical"),
            CONFIG);
    assertNull(unmapped.qos());
    assertNull(unmapped.nice());
  }

  @Test
  void gangIsOneJobOfNNodes() {
    PlaceholderJob j =
        PlaceholderJobs.from(
            pod(
                Map.of("cpu", "4", "memory", "8Gi"),
                Map.of("tandem.dev/pod-group", "g", "tandem.dev/group-size", "3"),
                Map.of(),
                null),
            CONFIG);
    assertEquals(3, j.nodes());
    assertEquals(4, j.cpusPerNode());
    assertEquals(8192, j.memoryMbPerNode());
  }

  @Test
  void aGangJobIsTaggedWithTheGroupNotAPodUid() {
    PlaceholderJob j =
        PlaceholderJobs.forGroup(
            "team.g.1a2b3c4d",
            pod(
                Map.of("cpu", "4", "memory", "8Gi", "nvidia.com/gpu", "2"),
                Map.of("tandem.dev/pod-group", "g", "tandem.dev/group-size", "3"),
                Map.of("nvidia.com/gpu.product", "A100"),
                "high"),
            CONFIG,
            3);
    assertEquals("tandem-pod-team.g.1a2b3c4d", j.name());
    assertEquals("tandem.dev/pod-uid=team.g.1a2b3c4d group=team/g", j.comment());
    assertEquals("team.g.1a2b3c4d", j.podUid());
    assertEquals(3, j.nodes());
    assertEquals(4, j.cpusPerNode());
    assertEquals(8192, j.memoryMbPerNode());
    assertEquals("gpu:a100:2", j.gresPerNode());
    assertEquals("high", j.qos());
    assertEquals(-100, j.nice());
    assertFalse(j.requeue());
  }

  @Test
  void anInvalidPodHasNoJob() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                PlaceholderJobs.from(
                    pod(
                        Map.of("cpu", "1", "memory", "1Gi", "x.io/y", "1"),
                        Map.of(),
                        Map.of(),
                        null),
                    CONFIG));
    assertTrue(e.getMessage().contains("requests.x.io/y has no GRES mapping"), e.getMessage());
  }
}
