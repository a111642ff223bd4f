package dev.tandem.slurm.v0038;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.slurm.SlurmException;
import dev.tandem.slurm.SlurmNotFoundException;
import dev.tandem.slurm.SlurmRejectedException;
import dev.tandem.slurm.SlurmTransport.Response;
import dev.tandem.slurm.SlurmUnauthorizedException;
import dev.tandem.slurm.SlurmUnavailableException;
import dev.tandem.slurm.SlurmUnsupportedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a slurmrestd 22.05 error answer means. 22.05 answers almost every failure with HTTP 500 and
 * an {@code errors} array whose number sits under {@code errno}, {@code error_number} or {@code
 * error_code} depending on the handler. See docs/slurm-client.md for the table.
 */
final class V0038Errors {
  private static final Logger LOG = LoggerFactory.getLogger(V0038Errors.class);

  static final int INVALID_JOB_ID = 2017;
  static final int INVALID_NODE_NAME = 2018;
  static final int ALREADY_DONE = 2021;

  /** errno -1, "Unspecified error": a bad/expired token OR slurmctld unreachable (ambiguous). */
  static final int UNSPECIFIED = -1;

  private V0038Errors() {}

  /** One entry of the {@code errors} array. */
  record SlurmError(int number, String error, String description) {
    String message() {
      if (description == null || description.equals(error)) {
        return error == null ? "(no message)" : error;
      }
      return error == null ? description : error + " (" + description + ")";
    }
  }

  static List<SlurmError> errors(JsonNode root) {
    List<SlurmError> out = new ArrayList<>();
    if (root == null) {
      return out;
    }
    for (JsonNode e : root.path("errors")) {
      int num = 0;
      for (String key : new String[] {"error_number", "errno", "error_code"}) {
        if (e.has(key) && e.get(key).canConvertToInt()) {
          num = e.get(key).asInt();
          break;
        }
      }
      out.add(new SlurmError(num, V0038Json.text(e, "error"), V0038Json.text(e, "description")));
    }
    return out;
  }

  static boolean has(List<SlurmError> errors, int number) {
    return errors.stream().anyMatch(e -> e.number() == number);
  }

  /** JSON of a response body, or null when it is not JSON (401's text, empty bodies). */
  static JsonNode tryParse(String body) {
    try {
      JsonNode n = V0038Json.JSON.readTree(body == null ? "" : body);
      return n != null && n.isObject() ? n : null;
    } catch (java.io.IOException e) {
      return null;
    }
  }

  /**
   * The exception for a failed answer. {@code unspecified} decides what errno -1 means (it needs
   * another look at Slurm, see {@link SlurmClientV0038}).
   */
  static SlurmException toException(
      Response r, String context, java.util.function.Function<String, SlurmException> unspecified) {
    int status = r.status();
    JsonNode root = tryParse(r.body());
    List<SlurmError> errors = errors(root);
    String messages = join(errors);
    if (status == 401) {
      return new SlurmUnauthorizedException(
          context + ": slurmrestd refused the request (HTTP 401: missing user name or token)");
    }
    if (status == 404 || status == 405) {
      return new SlurmUnsupportedException(
          context + ": slurmrestd has no such endpoint (HTTP " + status + ")");
    }
    if (status == 400) {
      int num = errors.isEmpty() ? 0 : errors.get(errors.size() - 1).number();
      return new SlurmRejectedException(
          num, messages.isEmpty() ? V0038Json.snippet(r.body()) : messages, context);
    }
    if (!errors.isEmpty()) {
      if (has(errors, INVALID_JOB_ID) || has(errors, INVALID_NODE_NAME)) {
        return new SlurmNotFoundException(context + ": " + messages);
      }
      if (has(errors, UNSPECIFIED)) {
        return unspecified.apply(context + ": " + messages);
      }
      SlurmError first = errors.get(0);
      int n = first.number();
      if (n == 1007 || n == 2002 && isAuthText(messages)) {
        return new SlurmUnauthorizedException(context + ": " + messages);
      }
      if (n >= 1000 && n < 1100 || n >= 1800 && n < 1900) {
        // Communication errors between slurmrestd and slurmctld: try again later.
        return new SlurmUnavailableException(context + ": " + messages);
      }
      return new SlurmRejectedException(n, messages, context);
    }
    String body = V0038Json.snippet(r.body());
    return new SlurmUnavailableException(
        context
            + ": slurmrestd answered HTTP "
            + status
            + ": "
            + (body.isEmpty() ? "(no body)" : body));
  }

  private static boolean isAuthText(String s) {
    String l = s.toLowerCase(java.util.Locale.ROOT);
    return l.contains("authentication") || l.contains("token");
  }

  static String join(List<SlurmError> errors) {
    StringBuilder sb = new StringBuilder();
    for (SlurmError e : errors) {
      if (sb.length() > 0) {
        sb.append("; ");
      }
      sb.append(e.number() != 0 ? "[" + e.number() + "] " : "").append(e.message());
    }
    return sb.toString();
  }

  /** Without scontrol, an "Unspecified error" slower than this is taken as slurmctld down. */
  private static final Duration SLOW_UNSPECIFIED = Duration.ofSeconds(2);

  /**
   * 22.05 answers both a bad/expired token and an unreachable slurmctld with errno -1 "Unspecified
   * error". scontrol with the same token tells them apart (slurmctld drops a bad token's
   * connection: "Zero Bytes were transmitted"; a dead one refuses: "Unable to contact"); without
   * scontrol, slurmrestd's retries make the dead-controller answer slow.
   */
  static SlurmException diagnoseUnspecified(Scontrol scontrol, String msg, Duration took) {
    if (scontrol.configured()) {
      try {
        Scontrol.Result r = scontrol.run("show", "config");
        if (r.exitCode() == 0) {
          return new SlurmUnavailableException(
              msg + " (slurmrestd could not reach slurmctld; scontrol can with the same token)");
        }
        SlurmException e = Scontrol.toException(r.output(), msg + "; scontrol says");
        if (e instanceof SlurmUnauthorizedException || e instanceof SlurmUnavailableException) {
          return e;
        }
      } catch (SlurmException e) {
        LOG.debug("could not diagnose 'Unspecified error' with scontrol: {}", e.getMessage());
      }
    }
    if (took.compareTo(SLOW_UNSPECIFIED) >= 0) {
      return new SlurmUnavailableException(msg + " (slurmctld probably unreachable)");
    }
    return new SlurmUnauthorizedException(
        msg + " (slurmrestd 22.05 reports a bad or expired token this way)");
  }
}
