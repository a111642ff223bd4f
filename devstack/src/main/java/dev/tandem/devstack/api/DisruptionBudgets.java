package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.devstack.api.ApiException.Cause;
import dev.tandem.devstack.api.Store.Stored;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;

/**
 * policy/v1 PodDisruptionBudgets: the disruption controller's status ({@link BudgetStatus}) and the
 * eviction subresource's check, both under the API's write lock (so an eviction decides on the pods
 * as they are at that instant, as the real check does against a fresh status).
 *
 * <p>Which budgets a write refreshes, as the real controller enqueues them:
 *
 * <ol>
 *   <li>A pod write: the budgets of its namespace whose selector matches the pod as it was or as it
 *       is now. A pod no budget selects costs a look at the namespace's budgets (indexed, parsed)
 *       and no pod listing: only a refresh lists the namespace's pods.
 *   <li>A budget write (create, update, the controller's own status writes aside): that budget.
 * </ol>
 *
 * <p>When: the real controller is asynchronous (a status lags the pods by its queue). Here a write
 * refreshes its budgets at once, which tests rely on ("a pod turning Ready changes the budget at
 * once"), until a refresh gets slow: one that took more than {@link #SLOW} (thousands of selected
 * pods) makes the next refreshes in that namespace, for {@link #LAG}, wait for one refresh of all
 * its budgets {@code LAG} later on the API's timer, under the write lock. So a fleet of 5,000 pods
 * under one budget does not pay a listing per pod write (quadratic), and the status lags by at most
 * {@code LAG}, as a real one lags. Evictions never read the status: {@link #admitEviction} computes
 * it from the pods as they are.
 */
final class DisruptionBudgets {
  /** A refresh slower than this defers the next ones in its namespace. */
  static final Duration SLOW = Duration.ofMillis(20);

  /**
   * How long a slow refresh defers the next ones, and how late a deferred one runs. A refresh holds
   * the API's write lock while it reads every selected pod: at 200 ms, during a rollout of 1,000
   * pods under one budget, refreshes would take a large share of the lock and every write, such as
   * a NodeSet's status patch, would wait behind them. A real disruption controller refreshes from a
   * work queue, off any request's path.
   */
  static final Duration LAG = Duration.ofSeconds(1);

  private final Store store;
  private final ResourceCatalog catalog;
  private final ScheduledExecutorService timer;
  private final Lock writeLock;
  private boolean refreshing;

  /** How often pods were listed (refreshes and evictions), for tests. */
  private final AtomicLong podListings = new AtomicLong();

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

  long podListings() {
    return podListings.get();
  }

  private List<Stored> podsOf(String namespace) {
    podListings.incrementAndGet();
    return store.list(pods(), namespace);
  }

  /** After a write ({@code old} null: created, {@code now} null: removed): see the class doc. */
  void refresh(ResourceType t, ObjectNode old, ObjectNode now) {
    ObjectNode obj = now != null ? now : old;
    String namespace = Json.text(obj, "metadata", "namespace");
    if (refreshing || namespace == null) {
      return;
    }
    List<Stored> which;
    if (t.group().isEmpty() && t.plural().equals("pods")) {
      which = selecting(namespace, old, now);
    } else if (t.group().equals("policy") && t.plural().equals("poddisruptionbudgets")) {
      Stored b = now == null ? null : store.get(t, namespace, Json.text(now, "metadata", "name"));
      which = b == null ? List.of() : List.of(b);
    } else {
      return;
    }
    if (which.isEmpty()) {
      return; // the common case: no pod listing on every pod write
    }
    Long slow = slowAt.get(namespace);
    if (slow != null && System.nanoTime() - slow < LAG.toNanos()) {
      defer(namespace);
      return;
    }
    refreshTimed(namespace, which);
  }

  /** The budgets of the namespace whose selector matches the pod before or after the write. */
  private List<Stored> selecting(String namespace, ObjectNode old, ObjectNode now) {
    List<Stored> out = new ArrayList<>();
    for (Stored b : store.list(budgets(), namespace)) {
      LabelSelector sel = LabelSelector.fromObject(Json.at(b.obj(), "spec", "selector"));
      if (sel != null && ((old != null && sel.matches(old)) || (now != null && sel.matches(now)))) {
        out.add(b);
      }
    }
    return out;
  }

  /** Refreshes now and notes whether that was slow (what defers the next ones). */
  private void refreshTimed(String namespace, List<Stored> which) {
    long t0 = System.nanoTime();
    refreshNow(namespace, which);
    if (System.nanoTime() - t0 > SLOW.toNanos()) {
      slowAt.put(namespace, System.nanoTime());
    } else {
      slowAt.remove(namespace);
    }
  }

  /** One later refresh of every budget of the namespace (those deferred among them). */
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
              refreshTimed(namespace, store.list(budgets(), namespace));
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

  private void refreshNow(String namespace, List<Stored> which) {
    if (which.isEmpty()) {
      return;
    }
    refreshing = true;
    try {
      List<Stored> pods = podsOf(namespace);
      for (Stored b : which) {
        ObjectNode status = BudgetStatus.compute(b.obj(), pods, Instant.now());
        if (!BudgetStatus.sameStatus(b.obj().path("status"), status)) {
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
    ObjectNode status = BudgetStatus.compute(b.obj(), podsOf(pod.namespace()), Instant.now());
    if (!BudgetStatus.ready(pod.obj())) {
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
}
