package dev.tandem.slurm.modern;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.slurm.SlurmException;
import dev.tandem.slurm.SlurmNotFoundException;
import dev.tandem.slurm.SlurmRejectedException;
import dev.tandem.slurm.SlurmUnauthorizedException;
import dev.tandem.slurm.SlurmUnavailableException;
import dev.tandem.slurm.SlurmUnsupportedException;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns slurmrestd error answers into typed {@link SlurmException}s.
 *
 * <p>The HTTP status alone is not enough: 25.11 answers most slurmctld refusals with 500 (a later
 * Slurm with 422), an unknown job with 404, slurmctld unreachable with 502/504, a bad token with
 * 511, and an unknown node lookup with 200. So the Slurm error number in {@code errors[]} decides
 * first; the HTTP status decides only when no known number is given. Numbers are Slurm's {@code
 * slurm_errno.h} values, stable across releases.
 */
public final class SlurmErrors {
  private SlurmErrors() {}

  /**
   * A plain errno EPERM. slurmctld never answers a cancel with it (its refusals are 2002, 2010);
   * 25.11's {@code slurm_kill_jobs()} reports every failure to reach slurmctld as 1 (see {@link
   * ModernCancel}).
   */
  public static final int EPERM = 1;

  public static final int NO_CHANGE_IN_DATA = 1900;
  public static final int ACCESS_DENIED = 2002;
  public static final int NODES_BUSY = 2016;
  public static final int INVALID_JOB_ID = 2017;
  public static final int INVALID_NODE_NAME = 2018;
  public static final int TRANSITION_STATE_NO_UPDATE = 2020;
  public static final int ALREADY_DONE = 2021;
  public static final int INVALID_NODE_STATE = 2028;
  public static final int NODE_ALREADY_EXISTS = 2168;
  public static final int INVALID_NODE_STATE_TRANSITION = 2180;
  public static final int PROTOCOL_AUTHENTICATION_ERROR = 1007;

  /** What an error number means for the caller. */
  public enum Kind {
    NOT_FOUND,
    UNAUTHORIZED,
    UNAVAILABLE,
    REJECTED
  }

  /** One entry of a response's {@code errors} array. */
  public record SlurmError(int number, String error, String description, String source) {
    /** Slurm's words: the long description, with the short form when both exist. */
    public String text() {
      if (description != null && error != null && !description.equals(error)) {
        return description + " (" + error + ")";
      }
      return description != null ? description : error != null ? error : "no description";
    }
  }

  /**
   * The kind of a Slurm error number, or null for 0 and -1 (no specific error: the HTTP status
   * decides).
   */
  public static Kind kind(int n) {
    if (n == 0 || n == -1) {
      return null;
    }
    if (n == PROTOCOL_AUTHENTICATION_ERROR
        || (n >= 6000 && n < 6100) // auth plugin errors (expired, invalid credential, ...)
        || n == 9008) { // ESLURM_REST_AUTH_FAIL
      return Kind.UNAUTHORIZED;
    }
    if (n == INVALID_JOB_ID
        || n == INVALID_NODE_NAME
        || (n >= 2137 && n <= 2140)) { // ESLURM_INVALID_JOB_ID_{ZERO,NEGATIVE,TOO_LARGE,...}
      return Kind.NOT_FOUND;
    }
    if ((n >= 1000 && n < 1100) // communication errors, slurmctld shutting down
        || (n >= 1800 && n < 1900) // slurmctld unreachable
        || n == TRANSITION_STATE_NO_UPDATE // "Job can not be altered now, try again later"
        || n == 2027 // ESLURM_IN_STANDBY_MODE
        || n == 2131 // ESLURM_IN_STANDBY_USE_BACKUP
        || (n >= 5000 && n < 5100) // socket timeouts
        || (n >= 7000 && n < 7100)) { // slurmdbd connection
      return Kind.UNAVAILABLE;
    }
    return Kind.REJECTED;
  }

  /** The {@code errors} array of a body (null body gives none). */
  public static List<SlurmError> errors(JsonNode body) {
    List<SlurmError> out = new ArrayList<>();
    if (body == null) {
      return out;
    }
    for (JsonNode e : body.path("errors")) {
      out.add(
          new SlurmError(
              Json.intValue(e.get("error_number"), 0),
              Json.text(e.get("error")),
              Json.text(e.get("description")),
              Json.text(e.get("source"))));
    }
    return out;
  }

  /** The descriptions of the {@code warnings} array. */
  public static List<String> warnings(JsonNode body) {
    List<String> out = new ArrayList<>();
    if (body != null) {
      for (JsonNode w : body.path("warnings")) {
        String d = Json.text(w.get("description"));
        out.add(d == null ? w.toString() : d);
      }
    }
    return out;
  }

  /** The first error that carries a specific number, else the first error, else null. */
  public static SlurmError primary(List<SlurmError> errors) {
    for (SlurmError e : errors) {
      if (kind(e.number()) != null) {
        return e;
      }
    }
    return errors.isEmpty() ? null : errors.get(0);
  }

  /**
   * The exception for a failed exchange.
   *
   * @param context what was attempted, e.g. {@code "drain node n1"} (never a token)
   * @param status HTTP status
   * @param body parsed body, or null when it was not JSON
   * @param rawBody the body as received, used in messages when it was not JSON
   */
  public static SlurmException toException(
      String context, int status, JsonNode body, String rawBody) {
    SlurmError e = primary(errors(body));
    Kind k = e == null ? null : kind(e.number());
    String where = context + " (HTTP " + status + ")";
    if (status == 401 || status == 403 || status == 511) {
      // 511 is what 25.11 sends for a bad or expired token; 401 for a missing one.
      return new SlurmUnauthorizedException(
          where + ": slurmrestd refused the credentials" + detail(e, rawBody));
    }
    if (k != null) {
      return fromNumber(where, e.number(), e.text());
    }
    if (status >= 300 && status < 400) {
      // A 304 to a request that asked for no update_time, or a proxy's redirect: no data, and
      // nothing refused either. Retry.
      return new SlurmUnavailableException(
          where + ": slurmrestd answered without the data asked for" + detail(e, rawBody));
    }
    if (status == 404) {
      // A 404 without a Slurm error number is an unknown URL, not an unknown object: the API
      // version or plugin is not served. Treating it as "not found" would let callers conclude a
      // node is gone (docs/architecture.md: fail closed).
      return new SlurmUnsupportedException(
          where + ": slurmrestd does not serve this path" + detail(e, rawBody));
    }
    if (status >= 500) {
      return new SlurmUnavailableException(where + detail(e, rawBody));
    }
    int n = e == null ? 0 : e.number();
    return new SlurmRejectedException(n, e == null ? shortBody(rawBody) : e.text(), where);
  }

  /** The exception for a known, specific Slurm error number. */
  public static SlurmException fromNumber(String where, int number, String text) {
    Kind k = kind(number);
    if (k == null) {
      return new SlurmRejectedException(number, text, where);
    }
    return switch (k) {
      case NOT_FOUND -> new SlurmNotFoundException(where + ": Slurm error " + number + ": " + text);
      case UNAUTHORIZED ->
          new SlurmUnauthorizedException(where + ": Slurm error " + number + ": " + text);
      case UNAVAILABLE ->
          new SlurmUnavailableException(where + ": Slurm error " + number + ": " + text);
      case REJECTED -> new SlurmRejectedException(number, text, where);
    };
  }

  private static String detail(SlurmError e, String rawBody) {
    if (e != null) {
      return ": Slurm error " + e.number() + ": " + e.text();
    }
    String b = shortBody(rawBody);
    return b.isEmpty() ? "" : ": " + b;
  }

  /** A bounded, single-line excerpt of a body for messages. */
  static String shortBody(String rawBody) {
    if (rawBody == null) {
      return "";
    }
    String s = rawBody.replaceAll("\\s+", " ").trim();
    return s.length() > 200 ? s.substring(0, 200) + "..." : s;
  }
}
