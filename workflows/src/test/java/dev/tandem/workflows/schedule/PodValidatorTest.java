package dev.tandem.workflows.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PodValidatorTest {
  static final SchedulingConfig CONFIG =
      new SchedulingConfig(
          Map.of("nvidia.com/gpu", "gpu", "nvidia.com/gpu=A100", "gpu:a100"),
          "nvidia.com/gpu.product",
          Map.of(),
          null,
          Map.of(),
          60,
          5);

  static PodRequest pod(
      Map<String, String> requests, Map<String, String> annotations, Long grace, String node) {
    return new PodRequest("ns", "p", "uid-1", requests, annotations, Map.of(), null, grace, node);
  }

  static PodRequest withRequests(Map<String, String> requests) {
    return pod(requests, Map.of(), 30L, null);
  }

  static PodRequest withAnnotation(String key, String value) {
    Map<String, String> a = new HashMap<>();
    a.put(key, value);
    return pod(Map.of("cpu", "1", "memory", "1Gi"), a, 30L, null);
  }

  static List<String> problems(PodRequest p) {
    return PodValidator.validate(p, CONFIG);
  }

  @Test
  void aGoodPodHasNoProblems() {
    Map<String, String> a = new HashMap<>();
    a.put("tandem.dev/partition", "gpu");
    a.put("tandem.dev/qos", "high");
    a.put("tandem.dev/account", "physics");
    a.put("tandem.dev/time-limit", "1-02:00:00");
    a.put("tandem.dev/reservation", "maint_1");
    a.put("tandem.dev/exclusive", "user");
    a.put("tandem.dev/pod-group", "train-7");
    a.put("tandem.dev/group-size", "1");
    a.put("tandem.dev/job-id", "42");
    a.put("other.io/x", "anything");
    PodRequest p = pod(Map.of("cpu", "500m", "memory", "1Gi", "nvidia.com/gpu", "2"), a, 55L, "");
    assertEquals(List.of(), problems(p));
  }

  @Test
  void missingCpuAndMemory() {
    assertEquals(
        List.of(
            "requests.cpu is missing: set a cpu request (e.g. 500m) on the pod's containers",
            "requests.memory is missing: set a memory request (e.g. 512Mi) on the pod's"
                + " containers"),
        problems(withRequests(Map.of())));
  }

  @Test
  void zeroCpuAndMemory() {
    assertEquals(
        List.of(
            "requests.cpu \"0\" must be greater than zero",
            "requests.memory \"0Mi\" must be greater than zero"),
        problems(withRequests(Map.of("cpu", "0", "memory", "0Mi"))));
  }

  @Test
  void negativeAndGarbageQuantities() {
    assertEquals(
        List.of(
            "requests.cpu \"-1\" must be greater than zero",
            "requests.memory \"lots\" is not a Kubernetes quantity"),
        problems(withRequests(Map.of("cpu", "-1", "memory", "lots"))));
  }

  @Test
  void absurdQuantity() {
    assertEquals(
        List.of("requests.memory \"100E\" is too large"),
        problems(withRequests(Map.of("cpu", "1", "memory", "100E"))));
  }

  @Test
  void unmappedExtendedResourceIsAProblemNotDropped() {
    assertEquals(
        List.of(
            "requests.example.com/fpga has no GRES mapping: remove the request or ask the"
                + " administrator to map it to a Slurm GRES"),
        problems(withRequests(Map.of("cpu", "1", "memory", "1Gi", "example.com/fpga", "1"))));
  }

  @Test
  void fractionalExtendedResource() {
    assertEquals(
        List.of("requests.nvidia.com/gpu \"500m\" must be a whole number >= 0"),
        problems(withRequests(Map.of("cpu", "1", "memory", "1Gi", "nvidia.com/gpu", "500m"))));
  }

  @Test
  void unmappedModelWithoutPlainEntry() {
    SchedulingConfig onlyA100 =
        new SchedulingConfig(
            Map.of("nvidia.com/gpu=A100", "gpu:a100"),
            "nvidia.com/gpu.product",
            null,
            null,
            null,
            60,
            5);
    PodRequest p =
        new PodRequest(
            "ns",
            "p",
            "u",
            Map.of("cpu", "1", "memory", "1Gi", "nvidia.com/gpu", "1"),
            Map.of(),
            Map.of("nvidia.com/gpu.product", "H100"),
            null,
            30L,
            null);
    assertEquals(
        List.of(
            "requests.nvidia.com/gpu (model H100) has no GRES mapping: remove the request or ask"
                + " the administrator to map it to a Slurm GRES"),
        PodValidator.validate(p, onlyA100));
  }

  @Test
  void nodeName() {
    assertEquals(
        List.of(
            "spec.nodeName is set (\"k1\"): a pod scheduled by tandem-slurm must not name its"
                + " node; remove nodeName"),
        problems(pod(Map.of("cpu", "1", "memory", "1Gi"), Map.of(), 30L, "k1")));
  }

  @Test
  void graceAtTheLimitIsFineOneMoreIsNot() {
    assertEquals(
        List.of(), problems(pod(Map.of("cpu", "1", "memory", "1Gi"), Map.of(), 55L, null)));
    assertEquals(
        List.of(
            "terminationGracePeriodSeconds 56 is too long: Slurm kills a preempted job 60 s after"
                + " signalling it (KillWait), so the pod may take at most 55 s (KillWait minus a"
                + " 5 s margin); set terminationGracePeriodSeconds to 55 or less"),
        problems(pod(Map.of("cpu", "1", "memory", "1Gi"), Map.of(), 56L, null)));
  }

  @Test
  void defaultGraceAgainstSlurmDefaultKillWaitIsTooLong() {
    PodRequest p = pod(Map.of("cpu", "1", "memory", "1Gi"), Map.of(), null, null);
    assertEquals(
        List.of(
            "terminationGracePeriodSeconds 30 is too long: Slurm kills a preempted job 30 s after"
                + " signalling it (KillWait), so the pod may take at most 25 s (KillWait minus a"
                + " 5 s margin); set terminationGracePeriodSeconds to 25 or less"),
        PodValidator.validate(p, SchedulingConfig.defaults()));
  }

  @Test
  void unknownAnnotation() {
    assertEquals(
        List.of(
            "unknown annotation tandem.dev/partitoin: remove it or use one of"
                + " tandem.dev/partition, tandem.dev/qos, tandem.dev/account,"
                + " tandem.dev/time-limit, tandem.dev/reservation, tandem.dev/exclusive,"
                + " tandem.dev/pod-group, tandem.dev/group-size"),
        problems(withAnnotation("tandem.dev/partitoin", "gpu")));
  }

  @ParameterizedTest
  @CsvSource({
    "tandem.dev/partition, 'gpu nodes'",
    "tandem.dev/qos, ''",
    "tandem.dev/account, 'a,b'",
    "tandem.dev/reservation, '-x'",
  })
  void badSlurmNames(String key, String value) {
    assertEquals(
        List.of(
            "annotation "
                + key
                + " \""
                + value
                + "\" is not a Slurm name: use letters, digits, '_', '.' and '-' (at most 64)"),
        problems(withAnnotation(key, value)));
  }

  @ParameterizedTest
  @CsvSource({"abc", "1:2:3:4", "0", "0:0", "-1", "UNLIMITED", "1-", "99999999999999999999"})
  void badTimeLimits(String value) {
    assertEquals(
        List.of(
            "annotation tandem.dev/time-limit \""
                + value
                + "\" is not a Slurm time limit: use minutes, M:S, H:M:S, D-H, D-H:M or D-H:M:S"
                + " (at least one minute)"),
        problems(withAnnotation("tandem.dev/time-limit", value)));
  }

  @Test
  void badExclusive() {
    assertEquals(
        List.of("annotation tandem.dev/exclusive \"all\" must be none, user or exclusive"),
        problems(withAnnotation("tandem.dev/exclusive", "all")));
  }

  @ParameterizedTest
  @CsvSource({"0", "-2", "two", "1.5", "''"})
  void badGroupSize(String value) {
    Map<String, String> a = Map.of("tandem.dev/group-size", value, "tandem.dev/pod-group", "g");
    assertEquals(
        List.of("annotation tandem.dev/group-size \"" + value + "\" must be a whole number >= 1"),
        problems(pod(Map.of("cpu", "1", "memory", "1Gi"), a, 30L, null)));
  }

  @Test
  void groupSizeWithoutGroupAndGroupWithoutSize() {
    assertEquals(
        List.of("annotation tandem.dev/group-size needs tandem.dev/pod-group (the group's name)"),
        problems(withAnnotation("tandem.dev/group-size", "3")));
    assertEquals(
        List.of(
            "annotation tandem.dev/pod-group needs tandem.dev/group-size (the number of pods in"
                + " it)"),
        problems(withAnnotation("tandem.dev/pod-group", "g")));
  }

  @Test
  void badGroupName() {
    Map<String, String> a = Map.of("tandem.dev/group-size", "2", "tandem.dev/pod-group", "Big_G");
    assertEquals(
        List.of(
            "annotation tandem.dev/pod-group \"Big_G\" must be a DNS label (lower-case letters,"
                + " digits and '-', at most 63)"),
        problems(pod(Map.of("cpu", "1", "memory", "1Gi"), a, 30L, null)));
  }

  @Test
  void everyProblemIsReportedAtOnce() {
    Map<String, String> a = Map.of("tandem.dev/exclusive", "yes", "tandem.dev/foo", "1");
    List<String> all = problems(pod(Map.of("memory", "1Gi"), a, 300L, "k"));
    assertEquals(5, all.size(), all.toString());
  }
}
