package dev.tandem.workflows.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.temporal.common.converter.JacksonJsonPayloadConverter;
import org.junit.jupiter.api.Test;

/** Signals arrive as JSON from the Temporal CLI: whatever comes must parse, never throw. */
class NodeCommandTest {
  private final ObjectMapper mapper = JacksonJsonPayloadConverter.newDefaultObjectMapper();

  private NodeCommand parse(String json) throws Exception {
    return mapper.readValue(json, NodeCommand.class);
  }

  @Test
  void theDocumentedPayloadParses() throws Exception {
    NodeCommand c = parse("{\"owner\":\"manual\",\"reason\":\"GPU 3 Xid 79\"}");
    assertNull(c.rejected());
    assertEquals(DrainCause.MANUAL, c.cause().orElseThrow());
    assertEquals("GPU 3 Xid 79", c.reason());
    assertNull(c.policy());
  }

  @Test
  void policyParsesCaseInsensitively() throws Exception {
    NodeCommand c =
        parse(
            "{\"owner\":\"scale-down\",\"reason\":\"x\",\"policy\":{\"timeoutSeconds\":60,"
                + "\"onTimeout\":\"force\"}}");
    assertNull(c.rejected());
    assertEquals(new DrainPolicy(60, TimeoutAction.FORCE), c.policy());
  }

  @Test
  void garbageBecomesAProblemNotAnException() throws Exception {
    assertTrue(parse("\"garbage\"").rejected().startsWith("payload must be a JSON object"));
    assertTrue(parse("42").rejected().startsWith("payload must be a JSON object"));
    assertTrue(parse("[1,2]").rejected().startsWith("payload must be a JSON object"));
    // JSON null never reaches the creator: the workflow records it as an empty payload.
    assertNull(parse("null"));
    assertTrue(parse("{}").rejected().contains("\"owner\" is required"));
    assertTrue(parse("{\"owner\":\"bob\"}").rejected().contains("\"owner\" must be one of"));
    assertTrue(
        parse("{\"owner\":\"manual\",\"policy\":{\"timeoutSeconds\":-1}}")
            .rejected()
            .contains("non-negative"));
    assertTrue(
        parse("{\"owner\":\"manual\",\"policy\":{\"onTimeout\":\"later\"}}")
            .rejected()
            .contains("WAIT or FORCE"));
  }

  @Test
  void roundTripsThroughTemporalsConverter() throws Exception {
    NodeCommand c = NodeCommand.of("k8s-cordon", "cordoned").withPolicy(DrainPolicy.waitForever());
    NodeCommand back = parse(mapper.writeValueAsString(c));
    assertEquals(c, back);
  }
}
