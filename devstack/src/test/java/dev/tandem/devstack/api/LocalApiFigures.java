package dev.tandem.devstack.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.Test;

/**
 * Printed figures, not a test of times (nothing is asserted on them): the local API's reads and
 * writes with 2,000 pods and 1,000 events stored, over HTTP from one client thread, as {@code
 * tandem bench scheduling}'s harness uses it. Not run by the build (the name does not end in Test):
 *
 * <pre>
 * ./mvnw -B -o -pl devstack -am test -Dtest=LocalApiFigures -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 *
 * <p>Only public API and {@link ApiHttp}, so that the same file runs against older code for a
 * before/after comparison. Each figure is the median of three rounds.
 */
class LocalApiFigures {
  private static final int PODS = 2_000;
  private static final int EVENTS = 1_000;
  private static final int GUARDED = 20;
  private static final int ROUNDS = 3;

  @Test
  void print() throws Exception {
    try (LocalApiServer server = LocalApiServer.start(0)) {
      ApiHttp http = new ApiHttp(server);
      long t0 = System.nanoTime();
      for (int i = 0; i < PODS; i++) {
        created(http.post("/api/v1/namespaces/default/pods", pod("pod-" + i, i)));
      }
      double createS = PODS / seconds(t0);
      for (int i = 0; i < EVENTS; i++) {
        created(http.post("/api/v1/namespaces/default/events", event(i)));
      }
      for (int i = 0; i < GUARDED; i++) {
        created(http.post("/api/v1/namespaces/default/pods", pod("guarded-" + i, -1)));
      }
      created(
          http.post(
              "/apis/policy/v1/namespaces/default/poddisruptionbudgets",
              "{\"metadata\":{\"name\":\"guard\"},\"spec\":{\"minAvailable\":1,"
                  + "\"selector\":{\"matchLabels\":{\"guarded\":\"yes\"}}}}"));
      line("pod creates/s (first 2,000, empty store to full)", createS);
      line(
          "GET pod, /s",
          rate(2_000, i -> ok(http.get("/api/v1/namespaces/default/pods/pod-" + (i * 7 % PODS)))));
      line(
          "GET event, /s",
          rate(1_000, i -> ok(http.get("/api/v1/namespaces/default/events/ev-" + (i % EVENTS)))));
      line(
          "LIST pods by label (100 of 2,020 match), /s",
          rate(
              100,
              i ->
                  ok(
                      http.get(
                          "/api/v1/namespaces/default/pods?labelSelector=tandem.dev%2Fnodeset%3Dset-"
                              + (i % 20)))));
      line(
          "LIST events by involvedObject.name (1 match), /s",
          rate(
              200,
              i ->
                  ok(
                      http.get(
                          "/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dpod-"
                              + i))));
      double perList =
          1_000.0
              / rate(
                  500,
                  i ->
                      ok(
                          http.get(
                              "/api/v1/pods?labelSelector=app%3Dbench&fieldSelector=metadata.name%3Dpod-"
                                  + (i * 13 % PODS))));
      line("LIST pods, all namespaces, label + metadata.name (the binder's), ms each", perList);
      line(
          "PATCH status of a pod no budget selects, /s",
          rate(
              300,
              i ->
                  ok(
                      http.patch(
                          "/api/v1/namespaces/default/pods/pod-" + (i * 3 % PODS) + "/status",
                          "application/merge-patch+json",
                          "{\"status\":{\"message\":\"m" + i + "\"}}"))));
      line(
          "PATCH status of a pod the budget selects, /s",
          rate(
              100,
              i ->
                  ok(
                      http.patch(
                          "/api/v1/namespaces/default/pods/guarded-" + (i % GUARDED) + "/status",
                          "application/merge-patch+json",
                          "{\"status\":{\"message\":\"m" + i + "\"}}"))));
      line("owner deletes with 2 dependents each, GC done, ms each", gcMillis(server, http));
      inProcess(server);
    }
  }

  /**
   * Owners deleted one at a time, each waited for until the GC has removed its dependents; in a
   * namespace of their own, without budgets, so that this is the GC's cost (finding dependents
   * among everything stored) and not the disruption controller's.
   */
  private static double gcMillis(LocalApiServer server, ApiHttp http) {
    created(http.post("/api/v1/namespaces", "{\"metadata\":{\"name\":\"gc\"}}"));
    int owners = 30;
    List<Double> rounds = new ArrayList<>();
    for (int r = 0; r < ROUNDS; r++) {
      List<String> uids = new ArrayList<>();
      for (int i = 0; i < owners; i++) {
        String name = "owner-" + r + "-" + i;
        uids.add(
            created(http.post("/api/v1/namespaces/gc/pods", pod(name, 0)))
                .json()
                .at("/metadata/uid")
                .asText());
        for (int k = 0; k < 2; k++) {
          created(
              http.post(
                  "/api/v1/namespaces/gc/pods",
                  pod(name + "-dep-" + k, 0)
                      .replace(
                          "\"metadata\":{",
                          "\"metadata\":{\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":"
                              + "\"Pod\",\"name\":\""
                              + name
                              + "\",\"uid\":\""
                              + uids.get(i)
                              + "\"}],")));
        }
      }
      long t0 = System.nanoTime();
      for (int i = 0; i < owners; i++) {
        ok(http.delete("/api/v1/namespaces/gc/pods/owner-" + r + "-" + i, null));
        server.awaitGarbageCollector(Duration.ofSeconds(30));
      }
      rounds.add(seconds(t0) * 1_000 / owners);
    }
    return median(rounds);
  }

  /**
   * The store's own get and list, called directly under the read lock: the server's share of a
   * request without HTTP and JSON output. Reached by reflection (dispatcher → router → reads →
   * store) because older code has no accessor for the store.
   */
  private static void inProcess(LocalApiServer server) throws ReflectiveOperationException {
    LocalApiDispatcher d = (LocalApiDispatcher) field(server, "dispatcher");
    Object router = field(d, "router");
    Store store = (Store) field(field(router, "reads"), "store");
    ResourceType pods = ((ResourceCatalog) field(router, "catalog")).require("", "v1", "pods");
    d.lock.readLock().lock();
    try {
      line(
          "in-process Store.get pod, /s",
          timed(200_000, i -> store.get(pods, "default", "pod-" + (i * 7 % PODS))));
      line(
          "in-process Store.list pods of a namespace (2,020), /s",
          timed(2_000, i -> store.list(pods, "default")));
    } finally {
      d.lock.readLock().unlock();
    }
  }

  private static Object field(Object o, String name) throws ReflectiveOperationException {
    Field f = o.getClass().getDeclaredField(name);
    f.setAccessible(true);
    return f.get(o);
  }

  /** As {@link #rate}, each round stopping after at most {@code n} operations or one second. */
  private static double timed(int n, IntConsumer op) {
    List<Double> rounds = new ArrayList<>();
    for (int r = 0; r < ROUNDS; r++) {
      long t0 = System.nanoTime();
      int done = 0;
      while (done < n && System.nanoTime() - t0 < 1_000_000_000L) {
        op.accept(done++);
      }
      rounds.add(done / seconds(t0));
    }
    return median(rounds);
  }

  private static double rate(int n, IntConsumer op) {
    List<Double> rounds = new ArrayList<>();
    for (int r = 0; r < ROUNDS; r++) {
      long t0 = System.nanoTime();
      for (int i = 0; i < n; i++) {
        op.accept(i + r * n);
      }
      rounds.add(n / seconds(t0));
    }
    return median(rounds);
  }

  private static double median(List<Double> xs) {
    double[] a = xs.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(a);
    return a[a.length / 2];
  }

  private static double seconds(long t0) {
    return (System.nanoTime() - t0) / 1e9;
  }

  private static void line(String what, double value) {
    System.out.println(String.format(Locale.ROOT, "FIGURE %-70s %10.1f", what, value));
  }

  private static ApiHttp.Res created(ApiHttp.Res r) {
    assertEquals(201, r.code(), r.body());
    return r;
  }

  private static void ok(ApiHttp.Res r) {
    assertEquals(200, r.code(), r.body());
  }

  /** A pod about the size of a slurmd pod (~2 KB); {@code i} < 0: labelled guarded=yes. */
  private static String pod(String name, int i) {
    StringBuilder env = new StringBuilder();
    for (int k = 0; k < 12; k++) {
      env.append(k == 0 ? "" : ",")
          .append("{\"name\":\"SLURM_VAR_")
          .append(k)
          .append("\",\"value\":\"value-")
          .append(k)
          .append("-")
          .append(name)
          .append("\"}");
    }
    String labels =
        i < 0
            ? "\"guarded\":\"yes\""
            : "\"app\":\"bench\",\"tandem.dev/nodeset\":\"set-" + (i % 20) + "\"";
    return "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\""
        + name
        + "\",\"labels\":{"
        + labels
        + "},\"annotations\":{\"tandem.dev/slot\":\""
        + i
        + "\"}},\"spec\":{\"containers\":[{\"name\":\"slurmd\",\"image\":\"tandem/slurmd:1\","
        + "\"env\":["
        + env
        + "],\"resources\":{\"requests\":{\"cpu\":\"4\",\"memory\":\"8Gi\"},"
        + "\"limits\":{\"cpu\":\"4\",\"memory\":\"8Gi\"}}}],"
        + "\"tolerations\":[{\"key\":\"tandem.dev/slurm\",\"operator\":\"Exists\"}],"
        + "\"nodeSelector\":{\"tandem.dev/pool\":\"p1\"}}}";
  }

  private static String event(int i) {
    return "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":\"ev-"
        + i
        + "\"},\"involvedObject\":{\"kind\":\"Pod\",\"namespace\":\"default\",\"name\":\"pod-"
        + i
        + "\"},\"reason\":\"Scheduled\",\"message\":\"Successfully assigned default/pod-"
        + i
        + " to node-"
        + i
        + "\",\"type\":\"Normal\",\"source\":{\"component\":\"tandem\"}}";
  }
}
