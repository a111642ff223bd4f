package dev.tandem.workflows.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tandem.workflows.model.PodView;
import io.temporal.common.converter.JacksonJsonPayloadConverter;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code memberObserved} payloads read leniently, like {@code PodView}. */
class GroupMemberTest {
  private static final ObjectMapper TEMPORAL = JacksonJsonPayloadConverter.newDefaultObjectMapper();

  @Test
  void aValidMemberReadsBackEqualWithoutARejectedMember() throws Exception {
    GroupMember m =
        new GroupMember(
            new PodRequest(
                "ns",
                "a",
                "u",
                Map.of("cpu", "1"),
                Map.of("tandem.dev/pod-group", "g"),
                null,
                null,
                null,
                null),
            PodView.absent("a"));
    String json = TEMPORAL.writeValueAsString(m);
    assertFalse(json.contains("rejected"), json);
    assertEquals(m, TEMPORAL.readValue(json, GroupMember.class));
    GroupMember newer =
        TEMPORAL.readValue(
            "{\"request\":{\"namespace\":\"ns\",\"name\":\"a\",\"uid\":\"u\",\"x\":1},\"y\":2}",
            GroupMember.class);
    assertNull(newer.rejected());
    assertNull(newer.view(), "no view = the member is gone");
  }

  @Test
  void garbageIsRejectedNotDropped() throws Exception {
    assertTrue(
        TEMPORAL.readValue("\"garbage\"", GroupMember.class).rejected().startsWith("payload must"));
    assertEquals(
        "\"request\" with the pod's name and uid is required",
        TEMPORAL.readValue("{\"view\":{\"exists\":false}}", GroupMember.class).rejected());
    assertTrue(
        TEMPORAL
            .readValue("{\"request\":{\"name\":\"a\",\"uid\":\"u\"},\"view\":7}", GroupMember.class)
            .rejected()
            .startsWith("\"view\""));
  }
}
