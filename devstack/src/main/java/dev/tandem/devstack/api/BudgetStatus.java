package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.devstack.api.Store.Stored;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The status kube-controller-manager's disruption controller computes for a PodDisruptionBudget:
 *
 * <ol>
 *   <li>The pods of the budget's namespace its selector matches (a missing selector matches none,
 *       an empty one all).
 *   <li>{@code expectedPods}: the number of matched pods. With an integer {@code minAvailable} that
 *       is all a real controller uses. With {@code maxUnavailable} or a percentage it needs the
 *       pods' controllers' scale; a matched pod without a controller owner fails the sync (as on a
 *       cluster: {@code SyncFailed}, no disruption allowed); pods with one are counted as they are
 *       (the local API serves no workload controllers to ask for a scale).
 *   <li>{@code desiredHealthy}: {@code minAvailable} (a percentage rounds up) or {@code
 *       expectedPods - maxUnavailable} (a percentage rounds up), never below 0.
 *   <li>{@code currentHealthy}: matched pods that are Ready, not being deleted and not listed in
 *       {@code disruptedPods} (evicted within the last 2 minutes, not yet deleting).
 *   <li>{@code disruptionsAllowed = max(0, currentHealthy - desiredHealthy)}, 0 without expected
 *       pods; condition {@code DisruptionAllowed} (SufficientPods / InsufficientPods).
 * </ol>
 */
final class BudgetStatus {
  private BudgetStatus() {}

  /** How long an evicted pod stays in {@code disruptedPods} (the controller's DeletionTimeout). */
  static final Duration DISRUPTED_TTL = Duration.ofMinutes(2);

  static boolean ready(JsonNode pod) {
    for (JsonNode c : pod.path("status").path("conditions")) {
      if ("Ready".equals(c.path("type").asText())) {
        return "True".equals(c.path("status").asText());
      }
    }
    return false;
  }

  /** The status the disruption controller would write for {@code pdb} now. */
  static ObjectNode compute(ObjectNode pdb, List<Stored> nsPods, Instant now) {
    JsonNode spec = pdb.path("spec");
    LabelSelector sel = LabelSelector.fromObject(spec.get("selector"));
    List<JsonNode> matched = new ArrayList<>();
    for (Stored p : nsPods) {
      if (sel != null && sel.matches(p.obj())) {
        matched.add(p.obj());
      }
    }
    Set<String> names = new LinkedHashSet<>();
    matched.forEach(p -> names.add(p.path("metadata").path("name").asText()));
    ObjectNode disrupted = Json.object();
    JsonNode before = pdb.path("status").path("disruptedPods");
    before
        .fields()
        .forEachRemaining(
            e -> {
              Instant at = Instant.parse(e.getValue().asText());
              if (names.contains(e.getKey())
                  && !deleting(find(matched, e.getKey()))
                  && at.plus(DISRUPTED_TTL).isAfter(now)) {
                disrupted.set(e.getKey(), e.getValue());
              }
            });
    int expected = matched.size();
    String failure = null;
    JsonNode min = spec.get("minAvailable");
    JsonNode max = spec.get("maxUnavailable");
    boolean needsControllers = max != null || (min != null && min.isTextual());
    if (needsControllers) {
      for (JsonNode p : matched) {
        if (!hasController(p)) {
          failure =
              "found no controllers for pod "
                  + Json.quote(p.path("metadata").path("name").asText());
          break;
        }
      }
    }
    long desired;
    if (max != null && !max.isNull()) {
      desired = Math.max(0, expected - scaled(max, expected));
    } else if (min != null && !min.isNull()) {
      desired = scaled(min, expected);
    } else {
      desired = 0;
    }
    long healthy = 0;
    for (JsonNode p : matched) {
      String name = p.path("metadata").path("name").asText();
      if (!deleting(p) && !disrupted.has(name) && ready(p)) {
        healthy++;
      }
    }
    long allowed = failure != null || expected <= 0 ? 0 : Math.max(0, healthy - desired);
    ObjectNode st = Json.object();
    st.put("observedGeneration", pdb.path("metadata").path("generation").asLong(1));
    if (!disrupted.isEmpty()) {
      st.set("disruptedPods", disrupted);
    }
    st.put("disruptionsAllowed", allowed);
    st.put("currentHealthy", healthy);
    st.put("desiredHealthy", desired);
    st.put("expectedPods", expected);
    String condStatus = allowed > 0 ? "True" : "False";
    String reason =
        failure != null ? "SyncFailed" : allowed > 0 ? "SufficientPods" : "InsufficientPods";
    String since = Json.now();
    for (JsonNode c : pdb.path("status").path("conditions")) {
      if ("DisruptionAllowed".equals(c.path("type").asText())
          && condStatus.equals(c.path("status").asText())) {
        since = c.path("lastTransitionTime").asText(since);
      }
    }
    ObjectNode cond =
        st.putArray("conditions")
            .addObject()
            .put("type", "DisruptionAllowed")
            .put("status", condStatus)
            .put("observedGeneration", st.path("observedGeneration").asLong())
            .put("lastTransitionTime", since)
            .put("reason", reason);
    cond.put("message", failure == null ? "" : failure);
    return st;
  }

  /** An int-or-string against {@code total}: percentages round up, as the controller does. */
  static long scaled(JsonNode v, int total) {
    if (v.isIntegralNumber()) {
      return v.asLong();
    }
    String s = v.asText().trim();
    if (s.endsWith("%")) {
      long pct = Long.parseLong(s.substring(0, s.length() - 1));
      return (pct * total + 99) / 100;
    }
    return Long.parseLong(s);
  }

  private static JsonNode find(List<JsonNode> pods, String name) {
    for (JsonNode p : pods) {
      if (name.equals(p.path("metadata").path("name").asText())) {
        return p;
      }
    }
    return null;
  }

  private static boolean deleting(JsonNode pod) {
    return pod != null && pod.path("metadata").hasNonNull("deletionTimestamp");
  }

  private static boolean hasController(JsonNode pod) {
    for (JsonNode o : pod.path("metadata").path("ownerReferences")) {
      if (o.path("controller").asBoolean(false)) {
        return true;
      }
    }
    return false;
  }

  /**
   * A kept lastTransitionTime makes an unchanged status equal, so a no-op refresh writes nothing.
   * Numbers compare by value: the stored status is parsed (small numbers are {@code IntNode}s), a
   * computed one holds {@code LongNode}s, and Jackson's equals tells them apart — so every refresh
   * used to rewrite every budget (a new resourceVersion and a watch event per pod write).
   */
  static boolean sameStatus(JsonNode a, ObjectNode b) {
    return a.equals(NUMBERS_BY_VALUE, b);
  }

  private static final Comparator<JsonNode> NUMBERS_BY_VALUE =
      (x, y) ->
          x.equals(y)
                  || (x.isIntegralNumber()
                      && y.isIntegralNumber()
                      && x.bigIntegerValue().equals(y.bigIntegerValue()))
              ? 0
              : 1;
}
