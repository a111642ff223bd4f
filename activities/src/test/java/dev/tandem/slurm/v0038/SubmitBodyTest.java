package dev.tandem.slurm.v0038;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.slurm.JobSubmission;
import dev.tandem.slurm.SlurmRejectedException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SubmitBodyTest {
  private static JsonNode body(JobSubmission s) throws Exception {
    return V0038Json.JSON.readTree(SubmitBody.json(s));
  }

  @Test
  void placeholderPinnedToNodesFollowsThe2205Rules() throws Exception {
    JsonNode b =
        body(
            JobSubmission.builder("tandem:ns/pod")
                .comment("schedule/ns/pod/uid")
                .partition("low")
                .nodeList(List.of("n2", "n3"))
                .exclusive(true)
                .noRequeue(true)
                .build());
    assertEquals(JobSubmission.PLACEHOLDER_SCRIPT, b.get("script").asText());
    JsonNode j = b.get("job");
    assertEquals("2", j.get("nodes").asText(), "nodes is a count");
    assertTrue(j.get("nodes").isTextual());
    assertEquals("n2,n3", j.get("nodelist").asText());
    assertEquals("exclusive", j.get("exclusive").asText());
    assertTrue(j.get("no_requeue").asBoolean());
    assertFalse(j.has("requeue"), "requeue:false is ignored by 22.05");
    assertEquals("/usr/bin:/bin", j.get("environment").get("PATH").asText());
    assertEquals("/dev/null", j.get("standard_output").asText());
    assertEquals("/tmp", j.get("current_working_directory").asText());
    assertFalse(j.has("argv") || b.has("argv"), "argv crashes slurmrestd 22.05.8");
    assertFalse(j.has("qos") || j.has("account") || j.has("gres"), "unset fields are left out");
  }

  @Test
  void sizes() throws Exception {
    JsonNode j =
        body(JobSubmission.builder("x")
                .nodeCount(3)
                .excludeNodes(List.of("n1"))
                .cpusPerNode(8)
                .memoryMbPerNode(16_000L)
                .gresPerNode("gpu:h100:8")
                .timeLimitMinutes(90L)
                .qos("high")
                .account("ml")
                .environment(Map.of("A", "1"))
                .build())
            .get("job");
    assertEquals("3", j.get("nodes").asText());
    assertEquals("n1", j.get("exclude_nodes").asText());
    assertEquals(1, j.get("tasks_per_node").asInt());
    assertEquals(8, j.get("cpus_per_task").asInt());
    assertEquals(16_000, j.get("memory_per_node").asLong());
    assertEquals("gpu:h100:8", j.get("gres").asText());
    assertEquals(90, j.get("time_limit").asLong());
    assertEquals("high", j.get("qos").asText());
    assertEquals("ml", j.get("account").asText());
    assertEquals(Map.of("A", "1"), V0038Json.JSON.convertValue(j.get("environment"), Map.class));
    assertFalse(j.has("exclusive"));
  }

  @Test
  void reservationNiceAndUserExclusivity() throws Exception {
    JsonNode j =
        body(JobSubmission.builder("x")
                .reservation("maint")
                .nice(10)
                .exclusivity(JobSubmission.Exclusivity.USER)
                .build())
            .get("job");
    assertEquals("maint", j.get("reservation").asText());
    assertEquals(10, j.get("nice").asInt());
    assertEquals("user", j.get("exclusive").asText(), "22.05 takes --exclusive=user as 'user'");
    JsonNode none =
        body(JobSubmission.builder("x").exclusivity(JobSubmission.Exclusivity.NONE).build())
            .get("job");
    assertFalse(none.has("exclusive") || none.has("nice") || none.has("reservation"));
  }

  @Test
  void badInputIsRefused() {
    assertThrows(
        IllegalArgumentException.class,
        () -> JobSubmission.builder("x").nice(JobSubmission.MAX_NICE + 1).build());
    assertThrows(
        SlurmRejectedException.class,
        () -> SubmitBody.json(JobSubmission.builder("x").nodeList(List.of("n[1-2]")).build()));
    assertThrows(
        IllegalArgumentException.class,
        () -> SubmitBody.json(JobSubmission.builder("x").nodeCount(0).build()));
  }
}
