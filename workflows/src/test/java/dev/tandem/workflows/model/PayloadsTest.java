package dev.tandem.workflows.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.temporal.common.converter.JacksonJsonPayloadConverter;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Signal payload records through Temporal's own mapper: valid ones read back equal and carry no
 * {@code rejected} member on the wire (so a worker from before the lenient reading still reads what
 * a newer one sends); unknown members are ignored.
 */
class PayloadsTest {
  private static final ObjectMapper TEMPORAL = JacksonJsonPayloadConverter.newDefaultObjectMapper();

  private static Object roundTrip(Object value, Class<?> type) throws Exception {
    String json = TEMPORAL.writeValueAsString(value);
    assertFalse(json.contains("rejected"), json);
    return TEMPORAL.readValue(json, type);
  }

  @Test
  void validPayloadsReadBackEqualWithoutARejectedMember() throws Exception {
    Instant t = Instant.parse("2025-01-31T12:00:00Z");
    PodTemplate tpl =
        new PodTemplate("r1", "{}", new SlurmSettings(List.of("p"), null, "gpu:1", 3));
    List<Object> values =
        List.of(
            new UpdateCommand(tpl, true, new DrainPolicy(60, TimeoutAction.FORCE)),
            new PodView(true, "n-0", "u", "r1", "Running", true, "k1", false, t, t, "m"),
            new SlurmNodeView("n-0", true, "idle", Set.of("DRAIN"), "why", "root", t, t),
            new NodeReport(
                "n-0", 0, NodePhase.READY, "r1", "r1", "idle", false, null, "k1", null, 7),
            new ClusterHealth(ClusterHealth.SLURM, false, "down", t, t),
            new SlurmJobView(42, "tandem-pod-u", "c", "RUNNING", "None", List.of("n1"), 0, t),
            new NodeSetSpecView(
                3,
                "uid",
                2,
                tpl,
                UpdateStrategy.rolling("25%"),
                DrainPolicy.waitForever(),
                new DrainPolicy(5, TimeoutAction.WAIT),
                List.of("p1")));
    for (Object v : values) {
      assertEquals(v, roundTrip(v, v.getClass()));
    }
  }

  @Test
  void unknownMembersAreIgnored() throws Exception {
    PodView v =
        TEMPORAL.readValue(
            "{\"exists\":true,\"name\":\"n-0\",\"newerField\":{\"x\":1},\"phase\":\"Running\"}",
            PodView.class);
    assertNull(v.rejected());
    assertEquals("n-0", v.name());
    assertEquals("Running", v.phase());
  }
}
