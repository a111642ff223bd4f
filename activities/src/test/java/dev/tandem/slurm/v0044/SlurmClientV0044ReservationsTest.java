package dev.tandem.slurm.v0044;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.slurm.SlurmRejectedException;
import dev.tandem.slurm.SlurmTransport.Request;
import dev.tandem.slurm.SlurmUnsupportedException;
import dev.tandem.slurm.spec.SpecOperations;
import dev.tandem.slurm.testing.FakeSlurmTransport;
import dev.tandem.slurm.v0041.SlurmClientV0041;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Reservations through v0.0.44 ({@code POST /reservation}, {@code DELETE /reservation/{name}}),
 * every request and answer checked against the spec; v0.0.41 has no {@code POST} and refuses.
 */
class SlurmClientV0044ReservationsTest extends V0044AnswersTestBase {
  private static final String META =
      "\"meta\":{\"plugin\":{\"type\":\"openapi/slurmctld\",\"name\":\"Slurm OpenAPI slurmctld\","
          + "\"data_parser\":\"data_parser/v0.0.44\",\"accounting_storage\":\"\"},"
          + "\"client\":{\"source\":\"[127.0.0.1]:41234(fd:9)\",\"user\":\"tandem\","
          + "\"group\":\"tandem\"},\"slurm\":{\"version\":{\"major\":\"25\",\"micro\":\"7\","
          + "\"minor\":\"11\"},\"release\":\"25.11.7\",\"cluster\":\"gpu\"}}";
  private static final String NONE =
      "{\"reservations\":[],"
          + META
          + ",\"errors\":[],"
          + "\"warnings\":[],\"last_update\":{\"set\":true,\"infinite\":false,\"number\":1764000000}}";

  @Test
  void createsWithTheFlagsNodesAndTheTokensUser() {
    fake.on("GET", P + "/reservations/", 200, NONE);
    fake.on(
        "POST",
        P + "/reservation",
        200,
        "{\"reservations\":[{\"name\":\"tandem-check-host-7\"}],"
            + META
            + ",\"errors\":[],\"warnings\":[]}");
    client.createReservation(
        "tandem-check-host-7", List.of("gpu-a-1", "gpu-a-2"), Duration.ofSeconds(1201));
    Request post = fake.last();
    assertEquals("POST", post.method());
    JsonNode b = SpecOperations.parse(post.jsonBody());
    assertEquals("tandem-check-host-7", b.get("name").asText());
    assertEquals("[\"gpu-a-1\",\"gpu-a-2\"]", b.get("node_list").toString());
    assertEquals("[\"tandem\"]", b.get("users").toString());
    assertEquals("[\"MAINT\",\"IGNORE_JOBS\"]", b.get("flags").toString());
    assertEquals(21, b.get("duration").get("number").asInt(), "minutes, rounded up");
    assertTrue(b.get("start_time").get("set").asBoolean());
    assertTrue(fake.drained());
  }

  @Test
  void anExistingReservationIsLeftAsItIs() {
    fake.on(
        "GET",
        P + "/reservations/",
        200,
        NONE.replace("\"reservations\":[]", "\"reservations\":[{\"name\":\"tandem-check-h\"}]"));
    client.createReservation("tandem-check-h", List.of("gpu-a-1"), Duration.ofMinutes(5));
    assertEquals(1, fake.requests().size(), "no POST: " + fake.requests());
  }

  @Test
  void noUserNamedIsRefusedBeforeAnything() {
    fake.on("GET", P + "/reservations/", 200, NONE.replace("\"user\":\"tandem\",", ""));
    assertThrows(
        SlurmRejectedException.class,
        () -> client.createReservation("tandem-check-h", List.of("n1"), Duration.ofMinutes(5)));
    assertEquals(1, fake.requests().size());
  }

  @Test
  void deletingAnAbsentReservationSucceeds() {
    String ok = "{" + META + ",\"errors\":[],\"warnings\":[]}";
    fake.on("DELETE", P + "/reservation/tandem-check-h", 200, ok);
    client.deleteReservation("tandem-check-h");
    // ESLURM_RESERVATION_INVALID: the reservation is gone, what a retried delete wants.
    fake.on(
        "DELETE",
        P + "/reservation/tandem-check-h",
        500,
        error(2053, "Requested reservation is invalid"));
    client.deleteReservation("tandem-check-h");
    assertTrue(fake.drained());
  }

  @Test
  void accessDeniedIsARefusalNotGone() {
    // ESLURM_RESERVATION_ACCESS: the reservation may well exist; the caller must hear of it.
    fake.on(
        "DELETE",
        P + "/reservation/tandem-check-h",
        500,
        error(2052, "Access denied to requested reservation"));
    SlurmRejectedException e =
        fails(SlurmRejectedException.class, () -> client.deleteReservation("tandem-check-h"));
    assertEquals(2052, e.errorNumber());
  }

  @Test
  void theNumberDecidesNotTheText() {
    // The words of "gone" under another number are that number's refusal.
    fake.on(
        "DELETE",
        P + "/reservation/tandem-check-h",
        500,
        error(2052, "Requested reservation is invalid"));
    SlurmRejectedException e =
        fails(SlurmRejectedException.class, () -> client.deleteReservation("tandem-check-h"));
    assertEquals(2052, e.errorNumber());
  }

  @Test
  void aBusyReservationFails() {
    fake.on(
        "DELETE",
        P + "/reservation/tandem-check-h",
        500,
        error(2055, "Requested reservation is in use"));
    SlurmRejectedException e =
        fails(SlurmRejectedException.class, () -> client.deleteReservation("tandem-check-h"));
    assertEquals(2055, e.errorNumber());
  }

  @Test
  void namesAreCheckedBeforeAnythingIsSent() {
    assertThrows(
        IllegalArgumentException.class,
        () -> client.createReservation("a b", List.of("n1"), Duration.ofMinutes(1)));
    assertThrows(
        IllegalArgumentException.class,
        () -> client.createReservation("r", List.of("n[1-2]"), Duration.ofMinutes(1)));
    assertThrows(IllegalArgumentException.class, () -> client.deleteReservation("../x"));
    assertEquals(0, fake.requests().size());
  }

  @Test
  void v0041CannotCreateReservations() {
    FakeSlurmTransport t = new FakeSlurmTransport();
    SlurmClientV0041 old = new SlurmClientV0041(t);
    SlurmUnsupportedException e =
        assertThrows(
            SlurmUnsupportedException.class,
            () -> old.createReservation("r", List.of("n1"), Duration.ofMinutes(1)));
    assertTrue(e.getMessage().contains("v0.0.41"), e.getMessage());
    assertThrows(SlurmUnsupportedException.class, () -> old.deleteReservation("r"));
    assertEquals(0, t.requests().size());
  }

  private static String error(int n, String text) {
    return "{"
        + META
        + ",\"errors\":[{\"description\":\"Error deleting reservation tandem-check-h\","
        + "\"error_number\":"
        + n
        + ",\"error\":\""
        + text
        + "\","
        + "\"source\":\"slurm_delete_reservation\"}],\"warnings\":[]}";
  }
}
