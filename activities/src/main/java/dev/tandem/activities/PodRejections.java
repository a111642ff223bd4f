package dev.tandem.activities;

import dev.tandem.workflows.activities.KubeActivities;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.temporal.failure.ApplicationFailure;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A pod create the API server refused as invalid (400 Bad Request, 422 Unprocessable Entity): the
 * same template will be refused again, so it becomes a non-retryable {@link
 * KubeActivities#POD_REJECTED} failure whose message is one line saying which field and why. The
 * full error goes to the log and to an event; a NodeSet condition shows only the line.
 */
final class PodRejections {
  private PodRejections() {}

  /** The codes that mean "this pod is invalid" (403, 405, 415 say something else). */
  static final Set<Integer> CODES = Set.of(400, 422);

  /** Longest line kept: a condition message is read in {@code kubectl get}. */
  static final int MAX_LINE = 200;

  /** 422 without causes: {@code Pod "x" is invalid: <field>: <why>}; the field is what counts. */
  private static final String IS_INVALID = "\" is invalid: ";

  static boolean invalid(KubernetesClientException e) {
    return CODES.contains(e.getCode());
  }

  static ApplicationFailure failure(KubernetesClientException e) {
    return ApplicationFailure.newNonRetryableFailure(oneLine(e), KubeActivities.POD_REJECTED);
  }

  /**
   * Which field and why, in one line.
   *
   * <ol>
   *   <li>With {@code details.causes} (422 Invalid): {@code <field>: <message>} for each cause,
   *       joined by {@code "; "}.
   *   <li>Else the Status message (or the client's) after its last {@code "error:"} (a strict
   *       decoding error: {@code unknown field "spec.containers[0].resizePolicy"}) or its {@code is
   *       invalid:}, or its first line.
   *   <li>Whitespace runs become one space; capped at {@link #MAX_LINE} characters.
   * </ol>
   */
  static String oneLine(KubernetesClientException e) {
    Status st = e.getStatus();
    List<String> parts = new ArrayList<>();
    if (st != null && st.getDetails() != null && st.getDetails().getCauses() != null) {
      for (StatusCause c : st.getDetails().getCauses()) {
        String field = c.getField();
        String msg = c.getMessage() == null ? c.getReason() : c.getMessage();
        if (msg == null && field == null) {
          continue;
        }
        parts.add(field == null || field.isBlank() ? msg : field + ": " + msg);
      }
    }
    String line;
    if (!parts.isEmpty()) {
      line = String.join("; ", parts);
    } else {
      String m = st != null && st.getMessage() != null ? st.getMessage() : e.getMessage();
      line = summary(m == null ? "HTTP " + e.getCode() : m);
    }
    return cap(line);
  }

  /** The part of an API message that names the problem. */
  static String summary(String message) {
    String m = message;
    int invalid = m.indexOf(IS_INVALID);
    if (invalid >= 0) {
      m = m.substring(invalid + IS_INVALID.length());
    }
    int err = m.lastIndexOf("error:");
    if (err >= 0 && err + 6 < m.length()) {
      m = m.substring(err + 6);
    } else {
      int nl = m.indexOf('\n');
      if (nl >= 0) {
        m = m.substring(0, nl);
      }
    }
    return m.trim();
  }

  static String cap(String s) {
    String one = s.replaceAll("\\s+", " ").trim();
    return one.length() <= MAX_LINE ? one : one.substring(0, MAX_LINE - 3) + "...";
  }
}
