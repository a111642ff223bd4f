package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.devstack.api.ApiException.Cause;
import dev.tandem.devstack.api.Store.Stored;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

/**
 * policy/v1 PodDisruptionBudgets: the disruption controller's status and the eviction subresource's
 * check, both under the API's write lock (so an eviction decides on the pods as they are at that
 * instant, as the real check does against a fresh status).
 *
 * <p>Status, as kube-controller-manager's disruption controller computes it:
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
 *
 * <p>When it runs: the real controller is asynchronous (it resyncs after pod events, so a status
 * lags the pods by its queue). Here a pod write refreshes its namespace's budgets at once, which
 * tests rely on ("a pod turning Ready changes the budget at once"), until a refresh gets slow: one
 * that took more than {@link #SLOW} (thousands of pods, each parsed from the store) makes the next
 * pod writes in that namespace, for {@link #LAG}, mark it for one refresh {@code LAG} later on the
 * API's timer, under the write lock. So a fleet of 5,000 pods does not pay a full listing per pod
 * write (quadratic: `tandem bench fleet` provisioned 1.3 nodes/s), and the status lags by at most
 * {@code LAG}, as a real one lags. Evictions never read the status: {@link #admitEviction} computes
 * it from the pods as they are.
 */
final class DisruptionBudgets {
  /** A refresh slower than this defers the next ones in its namespace. */
  static final Duration SLOW = Duration.ofMillis(20);

  /** How long a slow refresh defers the next ones, and how late a deferred one runs. */
  static final Duration LAG = Duration.ofMillis(200);

  /** How long an evicted pod stays in {@code disruptedPods} (the controller's DeletionTimeout). */
  static final Duration DISRUPTED_TTL = Duration.ofMinutes(2);

  private final Store store;
  private final ResourceCatalog catalog;
  private final ScheduledExecutorService timer;
  private final Lock writeLock;
  private boolean refreshing;

  /** Namespace → when (nanoTime) a refresh there was last slow; under the write lock. */
  private final Map<String, Long> slowAt = new HashMap<>();

  /** Namespaces with a deferred refresh scheduled; under the write lock. */
  private final Set<String> deferred = new HashSet<>();

  DisruptionBudgets(
      Store store, ResourceCatalog catalog, ScheduledExecutorService timer, Lock writeLock) {
    this.store = store;
    this.catalog = catalog;
    this.timer = timer;
    this.writeLock = writeLock;
  }

  private ResourceType budgets() {
    return catalog.require("policy", "v1", "poddisruptionbudgets");
  }

  private ResourceType pods() {
    return catalog.require("", "v1", "pods");
  }

  /** After a write to a pod or a budget in {@code namespace}: writes the statuses that changed. */
  void refresh(ResourceType t, ObjectNode old, ObjectNode now) {
    String namespace = Json.text(now != null ? now : old, "metadata", "namespace");
    boolean relevant =
        (t.group().isEmpty() && t.plural().equals("pods"))
            || (t.group().equals("policy") && t.plural().equals("poddisruptionbudgets"));
    if (!relevant || refreshing || namespace == null) {
      return;
    }
    Long slow = slowAt.get(namespace);
    if (slow != null && System.nanoTime() - slow < LAG.toNanos()) {
      defer(namespace);
      return;
    }
    refreshTimed(namespace);
  }

  /** Refreshes now and notes whether that was slow (what defers the next ones). */
  private void refreshTimed(String namespace) {
    long t0 = System.nanoTime();
    refreshNow(namespace);
    if (System.nanoTime() - t0 > SLOW.toNanos()) {
      slowAt.put(namespace, System.nanoTime());
    } else {
      slowAt.remove(namespace);
    }
  }

  private void defer(String namespace) {
    if (!deferred.add(namespace)) {
      return;
    }
    try {
      timer.schedule(
          () -> {
            writeLock.lock();
            try {
              deferred.remove(namespace);
              refreshTimed(namespace);
            } finally {
              writeLock.unlock();
            }
          },
          LAG.toMillis(),
          TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      deferred.remove(namespace); // the server is stopping
    }
  }

  private void refreshNow(String namespace) {
    refreshing = true;
    try {
      List<Stored> budgets = store.list(budgets(), namespace);
      if (budgets.isEmpty()) {
        return; // the common case: no pod listing on every pod write
      }
      List<Stored> pods = store.list(pods(), namespace);
      for (Stored b : budgets) {
        ObjectNode status = compute(b.obj(), pods, Instant.now());
        if (!sameStatus(b.obj().path("status"), status)) {
          ObjectNode next = b.obj().deepCopy();
          next.set("status", status);
          store.update(budgets(), b, next);
        }
      }
    } finally {
      refreshing = false;
    }
  }

  /**
   * The eviction subresource's check for a pod that counts for budgets (Running, not deleting):
   * throws 429 (or 500 for several budgets) when it must not go, else records the disruption.
   */
  void admitEviction(Stored pod, boolean dryRun) {
    List<Stored> matching = new ArrayList<>();
    for (Stored b : store.list(budgets(), pod.namespace())) {
      LabelSelector sel = LabelSelector.fromObject(Json.at(b.obj(), "spec", "selector"));
      if (sel != null && sel.matches(pod.obj())) {
        matching.add(b);
      }
    }
    if (matching.isEmpty()) {
      return;
    }
    if (matching.size() > 1) {
      throw ApiException.internal(
          "This pod has more than one PodDisruptionBudget, which the eviction subresource does"
              + " not support.");
    }
    Stored b = matching.get(0);
    ObjectNode status = compute(b.obj(), store.list(pods(), pod.namespace()), Instant.now());
    if (!ready(pod.obj())) {
      // An unhealthy pod does not reduce availability: it may go while the budget is met.
      String policy = Json.text(b.obj(), "spec", "unhealthyPodEvictionPolicy");
      long desired = status.path("desiredHealthy").asLong();
      if ("AlwaysAllow".equals(policy)
          || (status.path("currentHealthy").asLong() >= desired && desired > 0)) {
        return;
      }
    }
    if (status.path("disruptionsAllowed").asLong() <= 0) {
      throw ApiException.tooManyRequests(
          "Cannot evict pod as it would violate the pod's disruption budget.",
          List.of(
              new Cause(
                  null,
                  "DisruptionBudget",
                  "The disruption budget "
                      + b.name()
                      + " needs "
                      + status.path("desiredHealthy").asLong()
                      + " healthy pods and has "
                      + status.path("currentHealthy").asLong()
                      + " currently")));
    }
    if (dryRun) {
      return;
    }
    ObjectNode next = b.obj().deepCopy();
    status.put("disruptionsAllowed", status.path("disruptionsAllowed").asLong() - 1);
    Json.child(status, "disruptedPods").put(pod.name(), Json.now());
    next.set("status", status);
    store.update(budgets(), b, next);
  }

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
   */
  private static boolean sameStatus(JsonNode a, ObjectNode b) {
    return a.equals(b);
  }
}
