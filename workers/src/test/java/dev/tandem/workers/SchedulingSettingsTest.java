package dev.tandem.workers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.schedule.PriorityMapping;
import dev.tandem.workflows.schedule.SchedulingConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code TANDEM_SCHED_*}: every good syntax, and a message naming the variable for every bad one.
 */
class SchedulingSettingsTest {
  private static SchedulingSettings read(Map<String, String> env) {
    return TandemConfig.from(new Env(env)).scheduling();
  }

  private static String error(String name, String value) {
    return assertThrows(ConfigException.class, () -> read(Map.of(name, value))).getMessage();
  }

  @Test
  void defaultsAreTheWorkflowDefaults() {
    SchedulingSettings s = read(Map.of());
    assertEquals(SchedulingConfig.defaults(), s.toConfig(SchedulingConfig.SLURM_DEFAULT_KILL_WAIT));
    assertEquals(30, s.killWaitFallbackSeconds());
    assertEquals(5, s.graceMarginSeconds());
    assertNull(s.defaultPartition());
    assertTrue(s.priorityClasses().isEmpty());
  }

  @Test
  void everySettingIsRead() {
    SchedulingSettings s =
        read(
            Map.of(
                "TANDEM_SCHED_GRES",
                " nvidia.com/gpu=gpu ; nvidia.com/gpu@NVIDIA-A100-SXM4-80GB=gpu:a100;"
                    + "example.com/fpga=fpga;",
                "TANDEM_SCHED_GPU_MODEL_LABEL",
                "example.com/model",
                "TANDEM_SCHED_PRIORITY_CLASSES",
                "high=qos:high;batch=qos:low,nice:100;bg=nice:-5",
                "TANDEM_SCHED_DEFAULT_PARTITION",
                "gpu_a",
                "TANDEM_SCHED_NAMESPACE_ACCOUNTS",
                " team-a=physics; team-b=ml ;",
                "TANDEM_SCHED_KILL_WAIT",
                "2m",
                "TANDEM_SCHED_GRACE_MARGIN",
                "10s"));
    SchedulingConfig c = s.toConfig(90);
    assertEquals(
        Map.of(
            "nvidia.com/gpu", "gpu",
            "nvidia.com/gpu=NVIDIA-A100-SXM4-80GB", "gpu:a100",
            "example.com/fpga", "fpga"),
        c.gres());
    assertEquals("example.com/model", c.gpuModelLabel());
    assertEquals(
        Map.of(
            "high", new PriorityMapping("high", null),
            "batch", new PriorityMapping("low", 100),
            "bg", new PriorityMapping(null, -5)),
        c.priorityClasses());
    assertEquals("gpu_a", c.defaultPartition());
    assertEquals(Map.of("team-a", "physics", "team-b", "ml"), c.namespaceAccounts());
    assertEquals(120, s.killWaitFallbackSeconds());
    assertEquals(90, c.killWaitSeconds(), "the resolved KillWait, not the fallback");
    assertEquals(10, c.graceMarginSeconds());
  }

  @Test
  void anEmptyGresMapMapsNothing() {
    assertTrue(read(Map.of("TANDEM_SCHED_GRES", ";")).gres().isEmpty());
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "nvidia.com/gpu | entry \"nvidia.com/gpu\" is not key=value",
        "nvidia.com/gpu=gpu=x | entry \"nvidia.com/gpu=gpu=x\" is not key=value",
        "gpu=gpu | \"gpu\" is not an extended resource name like nvidia.com/gpu",
        "nvidia.com/gpu@=gpu | GPU model \"\" is not a label value",
        "nvidia.com/gpu@A 100=gpu | GPU model \"A 100\" is not a label value",
        "nvidia.com/gpu=gpu:a100:2 | \"gpu:a100:2\" is not a GRES name with an optional type",
        "nvidia.com/gpu= | \"\" is not a GRES name with an optional type",
        "nvidia.com/gpu=gpu;nvidia.com/gpu=gpu:x | \"nvidia.com/gpu\" appears twice",
      })
  void badGresEntriesAreNamed(String value, String expected) {
    String m = error("TANDEM_SCHED_GRES", value);
    assertTrue(m.startsWith("TANDEM_SCHED_GRES: "), m);
    assertTrue(m.contains(expected), m);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "high | entry \"high\" is not key=value",
        "High=qos:x | \"High\" is not a PriorityClass name",
        "high= | \"high\": \"\" is not qos:<Slurm QOS name> or nice:<integer>",
        "high=qos: | \"qos:\" is not qos:<Slurm QOS name>",
        "high=prio:5 | \"prio:5\" is not qos:<Slurm QOS name>",
        "high=qos:a,qos:b | \"qos:b\" is not qos:<Slurm QOS name> or nice:<integer>, each at most",
        "high=nice:x | nice \"x\" is not a whole number",
        "high=nice:2147483646 | nice \"2147483646\" is not a whole number from -2147483645",
        "high=qos:a;high=qos:b | \"high\" appears twice",
      })
  void badPriorityClassEntriesAreNamed(String value, String expected) {
    String m = error("TANDEM_SCHED_PRIORITY_CLASSES", value);
    assertTrue(m.startsWith("TANDEM_SCHED_PRIORITY_CLASSES: "), m);
    assertTrue(m.contains(expected), m);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "team-a | \"team-a\" is not key=value",
        "Team=ml | \"Team\" is not a namespace name",
        "team-a=ml x | \"ml x\" is not a Slurm account name",
        "team-a=ml;team-a=physics | \"team-a\" appears twice",
      })
  void badNamespaceAccountEntriesAreNamed(String value, String expected) {
    String m = error("TANDEM_SCHED_NAMESPACE_ACCOUNTS", value);
    assertTrue(m.startsWith("TANDEM_SCHED_NAMESPACE_ACCOUNTS: "), m);
    assertTrue(m.contains(expected), m);
  }

  @Test
  void badSingleValuesAreNamed() {
    assertEquals(
        "TANDEM_SCHED_GPU_MODEL_LABEL=\"gpu model\" is not a label key, e.g."
            + " nvidia.com/gpu.product (optional DNS prefix and '/', then letters, digits, '-',"
            + " '_', '.')",
        error("TANDEM_SCHED_GPU_MODEL_LABEL", "gpu model"));
    assertEquals(
        "TANDEM_SCHED_DEFAULT_PARTITION=\"gpu a\" is not a Slurm partition name",
        error("TANDEM_SCHED_DEFAULT_PARTITION", "gpu a"));
    assertEquals(
        "TANDEM_SCHED_KILL_WAIT=\"30\" is not a duration like 500ms, 2s, 5m or 1h",
        error("TANDEM_SCHED_KILL_WAIT", "30"));
    assertEquals(
        "TANDEM_SCHED_KILL_WAIT=1500ms is not whole seconds (Slurm counts KillWait in seconds)",
        error("TANDEM_SCHED_KILL_WAIT", "1500ms"));
    assertEquals(
        "TANDEM_SCHED_KILL_WAIT=72000s is longer than Slurm allows (65533s)",
        error("TANDEM_SCHED_KILL_WAIT", "20h"));
    assertEquals(
        "TANDEM_SCHED_GRACE_MARGIN=\"-1s\" is not a duration like 500ms, 2s, 5m or 1h",
        error("TANDEM_SCHED_GRACE_MARGIN", "-1s"));
    assertEquals(
        "TANDEM_SCHED_GRACE_MARGIN (30s) must be shorter than TANDEM_SCHED_KILL_WAIT (30s):"
            + " otherwise no pod's grace period fits",
        error("TANDEM_SCHED_GRACE_MARGIN", "30s"));
  }
}
