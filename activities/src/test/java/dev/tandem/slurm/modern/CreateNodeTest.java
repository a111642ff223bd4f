package dev.tandem.slurm.modern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmException;
import dev.tandem.slurm.SlurmRejectedException;
import dev.tandem.slurm.SlurmUnauthorizedException;
import dev.tandem.slurm.SlurmUnavailableException;
import dev.tandem.slurm.SlurmUnsupportedException;
import dev.tandem.slurm.spec.OpenApiSpec;
import dev.tandem.slurm.spec.SpecOperations;
import dev.tandem.slurm.testing.FakeSlurmTransport;
import dev.tandem.slurm.v0041.SlurmClientV0041;
import dev.tandem.slurm.v0044.SlurmClientV0044;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link SlurmClient#createNode}: the name is looked up first and an existing one is never posted
 * (Slurm 25.11.7 deletes the node it is asked to create again), the request validates against the
 * v0.0.44 spec ({@code POST /new/node/}, {@code openapi_create_node_req}), success and error
 * answers are read, and versions without the path say so without sending anything.
 */
class CreateNodeTest {
  static final String P = "/slurm/v0.0.44";
  static final String LINE =
      "NodeName=gpu-a-7 State=FUTURE CPUs=8 RealMemory=64000 Gres=gpu:h100:8 Feature=h100,ib";

  private final FakeSlurmTransport fake =
      new FakeSlurmTransport().checkedAgainst(new SpecOperations(OpenApiSpec.load("v0.0.44")));
  private final SlurmClient client = new SlurmClientV0044(fake);

  private <T extends SlurmException> T fails(Class<T> type, Runnable call) {
    SlurmException e = assertThrows(SlurmException.class, call::run);
    return assertInstanceOf(type, e, e.toString());
  }

  /** {@code GET /node/gpu-a-7} as 25.11 answers an unknown node: the name is free. */
  private void free() {
    fake.onResource("GET", P + "/node/gpu-a-7", 200, P + "/node-unknown.json");
  }

  @Test
  void createSendsTheNodeLineAsNodeConf() {
    free();
    fake.onResource("POST", P + "/new/node/", 200, P + "/node-create-ok.json");
    client.createNode("  " + LINE + " ");
    assertEquals(2, fake.requests().size());
    assertEquals("GET", fake.requests().get(0).method());
    JsonNode body = SpecOperations.parse(fake.last().jsonBody());
    List<String> keys = new java.util.ArrayList<>();
    body.fieldNames().forEachRemaining(keys::add);
    assertEquals(List.of("node_conf"), keys);
    assertEquals(LINE, body.get("node_conf").asText());
  }

  @Test
  void anExistingNodeIsNeverPosted() {
    fake.onResource("GET", P + "/node/gpu-a-1", 200, P + "/node-drained.json");
    SlurmRejectedException e =
        fails(
            SlurmRejectedException.class,
            () -> client.createNode("NodeName=gpu-a-1 State=FUTURE CPUs=8"));
    assertEquals(SlurmErrors.NODE_ALREADY_EXISTS, e.errorNumber());
    assertEquals(1, fake.requests().size(), "only the lookup: " + fake.requests());
    assertEquals("GET", fake.last().method());
  }

  @Test
  void aLookupThatFailsPostsNothing() {
    fake.onResource("GET", P + "/node/gpu-a-7", 502, P + "/slurmctld-down.json");
    fails(SlurmUnavailableException.class, () -> client.createNode(LINE));
    fake.onResource("GET", P + "/node/gpu-a-7", 511, P + "/auth-511.json");
    fails(SlurmUnauthorizedException.class, () -> client.createNode(LINE));
    assertEquals(2, fake.requests().size(), "no POST: " + fake.requests());
  }

  @Test
  void aNodeCreatedAfterTheLookupIsRejectedWith2168() {
    free();
    fake.onResource("POST", P + "/new/node/", 500, P + "/node-create-exists.json");
    SlurmRejectedException e = fails(SlurmRejectedException.class, () -> client.createNode(LINE));
    assertEquals(SlurmErrors.NODE_ALREADY_EXISTS, e.errorNumber());
    assertTrue(e.slurmMessage().contains("already exists"), e.slurmMessage());
  }

  @Test
  void aLineSlurmctldCannotParseIsRejectedNotRetried() {
    free();
    fake.onResource("POST", P + "/new/node/", 500, P + "/node-create-bad-line.json");
    SlurmRejectedException e = fails(SlurmRejectedException.class, () -> client.createNode(LINE));
    assertEquals(-1, e.errorNumber());
    assertFalse(e.retryable());
  }

  @Test
  void outagesAndTokensMapAsEverywhere() {
    free();
    fake.onResource("POST", P + "/new/node/", 500, P + "/slurmctld-down.json");
    fails(SlurmUnavailableException.class, () -> client.createNode(LINE));
    free();
    fake.onResource("POST", P + "/new/node/", 511, P + "/auth-511.json");
    fails(SlurmUnauthorizedException.class, () -> client.createNode(LINE));
    free();
    String err =
        "{\"errors\":[{\"error_number\":2028,\"error\":\"Invalid node state specified\","
            + "\"description\":\"Failure to create node\"}],\"warnings\":[]}";
    fake.on("POST", P + "/new/node/", 200, err);
    SlurmRejectedException e =
        fails(SlurmRejectedException.class, () -> client.createNode("NodeName=gpu-a-7 CPUs=8"));
    assertEquals(2028, e.errorNumber());
  }

  @Test
  void onlyOneNodeOnOneLine() {
    for (String bad :
        List.of(
            "NodeName=gpu-a-[1-9] State=FUTURE",
            "NodeName=a,b State=FUTURE",
            "NodeName=gpu-a-7 State=FUTURE\nNodeName=gpu-a-8 State=FUTURE",
            "CPUs=8 NodeName=gpu-a-7",
            "NodeName=",
            " ")) {
      assertThrows(IllegalArgumentException.class, () -> client.createNode(bad), bad);
    }
    assertThrows(IllegalArgumentException.class, () -> client.createNode(null));
    assertEquals(List.of(), fake.requests());
    free();
    fake.onResource("POST", P + "/new/node/", 200, P + "/node-create-ok.json");
    client.createNode("nodename=gpu-a-7 state=future"); // slurm.conf keys ignore case
  }

  @Test
  void v0041HasNoNewNodePath() {
    FakeSlurmTransport f41 =
        new FakeSlurmTransport().checkedAgainst(new SpecOperations(OpenApiSpec.load("v0.0.41")));
    assertFalse(
        OpenApiSpec.load("v0.0.41").document().path("paths").has("/slurm/v0.0.41/new/node/"),
        "if the v0.0.41 spec gains the path, support it");
    SlurmUnsupportedException e =
        fails(SlurmUnsupportedException.class, () -> new SlurmClientV0041(f41).createNode(LINE));
    assertTrue(e.getMessage().contains("/new/node/"), e.getMessage());
    assertEquals(List.of(), f41.requests());
  }
}
