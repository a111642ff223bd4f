package dev.tandem.slurm.modern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.slurm.Reservations;
import dev.tandem.slurm.SlurmNotFoundException;
import dev.tandem.slurm.SlurmRejectedException;
import dev.tandem.slurm.SlurmTransport;
import dev.tandem.slurm.SlurmTransport.Request;
import dev.tandem.slurm.SlurmTransport.Response;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Reservations through slurmrestd v0.0.44: {@code POST /reservation} (create or update) and {@code
 * DELETE /reservation/{name}}. v0.0.41 has neither.
 *
 * <ol>
 *   <li>Create: list the reservations first ({@code GET /reservations/}). One of that name exists:
 *       done (a retried call; an update would move its start). Else POST the description with
 *       {@code users} = the token's user, which slurmrestd names in the listing's {@code
 *       meta.client.user} (the adapter never sees the token).
 *   <li>Delete: {@code DELETE}; Slurm error 2053 (or a not-found answer) means it is gone already,
 *       which is what a retried call wants. Only the number decides: 2052 ("Access denied to
 *       requested reservation") and every other refusal reach the caller, whatever the text says.
 * </ol>
 */
final class ModernReservations {
  /**
   * ESLURM_RESERVATION_INVALID, "Requested reservation is invalid": no such reservation. (2052 is
   * ESLURM_RESERVATION_ACCESS, "Access denied to requested reservation": a refusal.)
   */
  static final int RESERVATION_INVALID = 2053;

  private final SlurmTransport transport;
  private final String base;
  private final Clock clock;

  ModernReservations(SlurmTransport transport, String base, Clock clock) {
    this.transport = transport;
    this.base = base;
    this.clock = clock;
  }

  void create(String name, List<String> nodes, Duration duration) {
    Reservations.checkName(name);
    List<String> ns = Reservations.checkNodes(nodes);
    long minutes = Reservations.minutes(duration);
    String ctx = "create reservation " + name;
    JsonNode listing =
        Responses.requireOk(
            "list reservations", transport.send(Request.get(base + "/reservations/")));
    for (JsonNode r : Responses.list("list reservations", listing, "reservations")) {
      if (name.equalsIgnoreCase(Json.text(r.get("name")))) {
        return;
      }
    }
    JsonNode client = listing.path("meta").path("client");
    String user = Json.text(client.get("user"));
    if (user == null || user.isBlank()) {
      throw new SlurmRejectedException(
          0, "slurmrestd did not name the token's user (meta.client.user)", ctx);
    }
    String json = Responses.write(body(name, ns, minutes, user, clock.instant().getEpochSecond()));
    Responses.requireSuccess(ctx, transport.send(Request.post(base + "/reservation", json)));
  }

  static ObjectNode body(String name, List<String> nodes, long minutes, String user, long now) {
    ObjectNode b = Json.MAPPER.createObjectNode();
    b.put("name", name);
    ArrayNode nl = b.putArray("node_list");
    nodes.forEach(nl::add);
    b.putArray("users").add(user);
    ArrayNode flags = b.putArray("flags");
    Reservations.FLAGS.forEach(flags::add);
    b.set("start_time", Json.setNumber(now));
    b.set("duration", Json.setNumber(minutes));
    return b;
  }

  void delete(String name) {
    Reservations.checkName(name);
    String ctx = "delete reservation " + name;
    Response r = transport.send(Request.delete(base + "/reservation/" + name, Map.of()));
    try {
      Responses.requireSuccess(ctx, r);
    } catch (SlurmNotFoundException gone) {
      // gone already
    } catch (SlurmRejectedException e) {
      if (e.errorNumber() != RESERVATION_INVALID) {
        throw e;
      }
    }
  }
}
