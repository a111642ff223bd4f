package dev.tandem.workflows;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import dev.tandem.workflows.model.DrainCause;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.node.NodeLifecycleInput;
import dev.tandem.workflows.nodeset.NodeSetInput;
import io.temporal.api.common.v1.Payload;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DefaultDataConverter;
import java.io.InputStream;
import java.util.Base64;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Payloads written by one version of Tandem are read by another: during a rolling upgrade, on
 * rollback, and whenever a workflow replays or continues as new. Through Temporal's own
 * DefaultDataConverter, a payload with fields this code does not know, or without fields it knows,
 * still reads. The states come from recorded continue-as-new histories, i.e. exactly what a real
 * worker wrote.
 */
class PayloadCompatibilityTest {
  private static final DataConverter CONVERTER = DefaultDataConverter.newDefaultInstance();
  private static final ObjectMapper JSON = new ObjectMapper();

  /** JSON objects that are maps (their keys are data, not field names). */
  private static final Set<String> MAPS = Set.of("nodes", "holds", "health", "healthHeardMillis");

  /** The start input of a recorded run (the state carried over by continue-as-new). */
  static JsonNode startInput(String history) throws Exception {
    try (InputStream in = PayloadCompatibilityTest.class.getResourceAsStream(history)) {
      JsonNode h = JSON.readTree(in.readAllBytes());
      String data =
          h.path("events")
              .get(0)
              .path("workflowExecutionStartedEventAttributes")
              .path("input")
              .path("payloads")
              .get(0)
              .path("data")
              .asText();
      return JSON.readTree(Base64.getDecoder().decode(data));
    }
  }

  static <T> T read(JsonNode json, Class<T> type) throws Exception {
    Payload p =
        Payload.newBuilder()
            .putMetadata("encoding", ByteString.copyFromUtf8("json/plain"))
            .setData(ByteString.copyFrom(JSON.writeValueAsBytes(json)))
            .build();
    return CONVERTER.fromPayload(p, type, type);
  }

  static JsonNode write(Object o) throws Exception {
    return JSON.readTree(CONVERTER.toPayload(o).orElseThrow().getData().toStringUtf8());
  }

  /** Adds an unknown field to every object that is a class's (not a map's). */
  static void addUnknownFields(JsonNode n, boolean isMap) {
    if (n.isObject()) {
      // The values of a map are objects of a class again.
      n.fields()
          .forEachRemaining(
              e -> addUnknownFields(e.getValue(), !isMap && MAPS.contains(e.getKey())));
      if (!isMap) {
        ((ObjectNode) n).set("addedByANewerTandem", JSON.createObjectNode().put("x", 1));
      }
    } else if (n.isArray()) {
      n.forEach(x -> addUnknownFields(x, false));
    }
  }

  @Test
  void statesWithFieldsThisCodeDoesNotKnowStillRead() throws Exception {
    for (String h :
        new String[] {
          "/histories/node-continued-run2-0.1.0.json",
          "/histories/nodeset-continued-run2-0.1.0.json"
        }) {
      JsonNode original = startInput(h);
      Class<?> type = h.contains("nodeset") ? NodeSetInput.class : NodeLifecycleInput.class;
      JsonNode expected = write(read(original, type));
      JsonNode withExtra = original.deepCopy();
      addUnknownFields(withExtra, false);
      assertTrue(
          withExtra.toString().split("addedByANewerTandem").length > 10, withExtra::toString);
      assertEquals(expected, write(read(withExtra, type)), h);
    }
  }

  @Test
  void statesWithoutFieldsThisCodeKnowsStillRead() throws Exception {
    ObjectNode node = (ObjectNode) startInput("/histories/node-continued-run2-0.1.0.json");
    ObjectNode st = (ObjectNode) node.get("state");
    st.remove(java.util.List.of("reportSeq", "timeline", "jobIds", "problem"));
    JsonNode back = write(read(node, NodeLifecycleInput.class)).get("state");
    assertEquals(0, back.get("reportSeq").asLong());
    assertEquals(0, back.get("timeline").size());
    assertEquals(
        "tandem:manual: maintenance", back.get("holds").get("manual").asText(), "the rest is kept");

    ObjectNode set = (ObjectNode) startInput("/histories/nodeset-continued-run2-0.1.0.json");
    ObjectNode sst = (ObjectNode) set.get("state");
    sst.remove(java.util.List.of("health", "written"));
    ((ObjectNode) sst.get("nodes").elements().next().get("report")).remove("problem");
    JsonNode sback = write(read(set, NodeSetInput.class)).get("state");
    assertEquals(0, sback.get("health").size());
    assertTrue(sback.get("written").isNull());
    assertEquals(2, sback.get("nodes").size());
  }

  @Test
  void nodeCommandsWithUnknownFieldsParseThroughTheConverter() throws Exception {
    JsonNode payload =
        JSON.readTree(
            "{\"owner\":\"manual\",\"reason\":\"disk\",\"requestedBy\":\"alice\","
                + "\"policy\":{\"timeoutSeconds\":5,\"onTimeout\":\"WAIT\",\"grace\":1}}");
    NodeCommand c = read(payload, NodeCommand.class);
    assertNull(c.rejected());
    assertEquals(DrainCause.MANUAL, c.cause().orElseThrow());
    assertEquals(5, c.policy().timeoutSeconds());
    NodeCommand noReason = read(JSON.readTree("{\"owner\":\"k8s-cordon\"}"), NodeCommand.class);
    assertNull(noReason.rejected());
    assertNull(noReason.reason());
    assertEquals(c, read(write(c), NodeCommand.class));
  }
}
