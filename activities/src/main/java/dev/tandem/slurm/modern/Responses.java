package dev.tandem.slurm.modern;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.slurm.SlurmTransport.Response;
import dev.tandem.slurm.SlurmUnavailableException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** Reading slurmrestd answers: JSON bodies, success checks and record lists. */
final class Responses {
  private Responses() {}

  /**
   * The JSON body of a 2xx answer to a read; typed exception otherwise. A 2xx answer whose {@code
   * errors} name a Slurm error fails like a 500 with that error would: its lists cannot be trusted
   * to be complete, and an empty list would look like "no nodes" or "no jobs".
   */
  static JsonNode requireOk(String ctx, Response r) {
    if (!r.ok()) {
      throw SlurmErrors.toException(ctx, r.status(), parseQuietly(r.body()), r.body());
    }
    return requireNoErrors(ctx, r, requireJson(ctx, r));
  }

  /** {@code body} (the JSON of 2xx answer {@code r}), unless its {@code errors} fail it. */
  static JsonNode requireNoErrors(String ctx, Response r, JsonNode body) {
    for (SlurmErrors.SlurmError e : SlurmErrors.errors(body)) {
      if (e.number() == 0) {
        continue; // 25.11 lists "No error" next to an unknown node
      }
      String where = ctx + " (HTTP " + r.status() + ")";
      throw SlurmErrors.kind(e.number()) == null
          ? new SlurmUnavailableException(where + ": Slurm error " + e.number() + ": " + e.text())
          : SlurmErrors.fromNumber(where, e.number(), e.text());
    }
    return body;
  }

  /**
   * For changes (node update/delete): a 2xx answer without errors. Any entry in {@code errors} of a
   * 2xx answer is still a failure: the change did not happen.
   */
  static void requireSuccess(String ctx, Response r) {
    if (!r.ok()) {
      throw SlurmErrors.toException(ctx, r.status(), parseQuietly(r.body()), r.body());
    }
    if (r.body() == null || r.body().isBlank()) {
      return; // an empty 200/204 to a change carries no error either
    }
    JsonNode body = requireJson(ctx, r);
    List<SlurmErrors.SlurmError> errors = SlurmErrors.errors(body);
    SlurmErrors.SlurmError e = SlurmErrors.primary(errors);
    if (e != null) {
      throw SlurmErrors.fromNumber(ctx, e.number(), e.text());
    }
  }

  /** The body as a JSON object; anything else (empty, HTML, a list) is an unusable answer. */
  static JsonNode requireJson(String ctx, Response r) {
    // An empty answer to a read is not "no nodes": callers would take every node for gone.
    JsonNode body = parseQuietly(r.body());
    if (body == null || !body.isObject()) {
      throw notAnObject(ctx, r);
    }
    return body;
  }

  static SlurmUnavailableException notAnObject(String ctx, Response r) {
    return new SlurmUnavailableException(
        ctx
            + ": slurmrestd answered HTTP "
            + r.status()
            + " with a body that is not a JSON object: "
            + SlurmErrors.shortBody(r.body()));
  }

  static JsonNode parseQuietly(String body) {
    if (body == null || body.isBlank()) {
      return null;
    }
    try {
      return Json.MAPPER.readTree(body);
    } catch (JsonProcessingException e) {
      return null;
    }
  }

  static <T> List<T> parseAll(String ctx, JsonNode array, Function<JsonNode, T> parser) {
    List<T> out = new ArrayList<>();
    for (JsonNode n : array) {
      try {
        out.add(parser.apply(n));
      } catch (RuntimeException e) {
        // Fail the whole answer rather than drop an entry: a missing node or job would look like
        // one that is gone (docs/architecture.md: fail closed).
        throw new SlurmUnavailableException(ctx + ": unreadable entry: " + e.getMessage(), e);
      }
    }
    return out;
  }

  static String errorText(JsonNode body) {
    SlurmErrors.SlurmError e = SlurmErrors.primary(SlurmErrors.errors(body));
    return e == null ? "" : " (" + e.text() + ")";
  }

  static String write(JsonNode n) {
    try {
      return Json.MAPPER.writeValueAsString(n);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialize a request body", e);
    }
  }

  /** A 500 whose Slurm error says "credentials" or "slurmctld unreachable": no fallback helps. */
  static boolean knownOutage(Response r) {
    SlurmErrors.SlurmError e =
        SlurmErrors.primary(SlurmErrors.errors(Responses.parseQuietly(r.body())));
    SlurmErrors.Kind k = e == null ? null : SlurmErrors.kind(e.number());
    return k == SlurmErrors.Kind.UNAUTHORIZED || k == SlurmErrors.Kind.UNAVAILABLE;
  }

  static boolean noJobChanges(JsonNode body) {
    return SlurmErrors.warnings(body).stream().anyMatch(w -> w.contains("No job changes"));
  }

  /** The array {@code key} of a listing; a listing without it is unusable, not empty. */
  static JsonNode list(String ctx, JsonNode body, String key) {
    JsonNode a = body.get(key);
    if (a == null || !a.isArray()) {
      throw noList(ctx, body, key);
    }
    return a;
  }

  static SlurmUnavailableException noList(String ctx, JsonNode body, String key) {
    return new SlurmUnavailableException(
        ctx + ": slurmrestd answered without a \"" + key + "\" list" + errorText(body));
  }
}
