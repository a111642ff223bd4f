package dev.tandem.devstack.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Selectors in lists and watches, informers, resuming watches, and closing them. */
class ListWatchTest extends ApiTestBase {
  /** Fixture pods only. */
  private static final String NS = "sel";

  /** Pods the individual tests create. */
  private static final String W = "default";

  @BeforeAll
  static void pods() {
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
        .create();
    createPod(NS, "gpu-0", Map.of("pool", "gpu", "tier", "a"));
    createPod(NS, "gpu-1", Map.of("pool", "gpu"));
    createPod(NS, "cpu-0", Map.of("pool", "cpu"));
    createPod(NS, "bare", Map.of());
    bind(NS, "gpu-0", "n1");
    bind(NS, "cpu-0", "n2");
    client
        .pods()
        .inNamespace(NS)
        .withName("gpu-0")
        .subresource("status")
        .patch(
            io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE),
            "{\"status\":{\"phase\":\"Running\"}}");
  }

  private static void bind(String ns, String pod, String node) {
    ApiHttp.Res r =
        http.post(
            "/api/v1/namespaces/" + ns + "/pods/" + pod + "/binding",
            "{\"metadata\":{\"name\":\""
                + pod
                + "\"},\"target\":{\"kind\":\"Node\",\"name\":\""
                + node
                + "\"}}");
    assertEquals(201, r.code(), r.body());
  }

  private static List<String> names(List<Pod> pods) {
    return pods.stream().map(p -> p.getMetadata().getName()).sorted().collect(Collectors.toList());
  }

  @Test
  void setBasedLabelSelectorsFilterLists() {
    var pods = client.pods().inNamespace(NS);
    assertEquals(
        List.of("gpu-0", "gpu-1"),
        names(pods.withLabelIn("pool", "gpu", "fpga").list().getItems()));
    assertEquals(
        List.of("bare", "cpu-0"), names(pods.withLabelNotIn("pool", "gpu").list().getItems()));
    assertEquals(List.of("bare"), names(pods.withoutLabel("pool").list().getItems()));
    assertEquals(
        List.of("gpu-0"), names(pods.withLabel("pool", "gpu").withLabel("tier").list().getItems()));
    assertEquals(
        List.of(), names(pods.withLabelIn("pool", "none").list().getItems()), "never everything");
  }

  @Test
  void fieldSelectorsFilterLists() {
    var pods = client.pods().inAnyNamespace();
    assertEquals(List.of("gpu-0"), names(pods.withField("spec.nodeName", "n1").list().getItems()));
    assertEquals(
        List.of("cpu-0", "gpu-0"),
        names(client.pods().inNamespace(NS).withoutField("spec.nodeName", "").list().getItems()));
    assertEquals(
        List.of("gpu-0"), names(pods.withField("status.phase", "Running").list().getItems()));
    assertEquals(
        List.of("bare", "cpu-0", "gpu-1"),
        names(
            client
                .pods()
                .inNamespace(NS)
                .withoutField("status.phase", "Running")
                .list()
                .getItems()));
    assertEquals(
        List.of("gpu-1"),
        names(
            pods.withField("metadata.name", "gpu-1")
                .withField("metadata.namespace", NS)
                .list()
                .getItems()));
    KubernetesClientException e =
        assertThrows(
            KubernetesClientException.class, () -> pods.withField("spec.priority", "1").list());
    assertEquals(400, e.getCode());
  }

  @Test
  void informerWithSelectorsSeesObjectsEnterAndLeave() throws Exception {
    List<String> events = new CopyOnWriteArrayList<>();
    SharedIndexInformer<Pod> inf =
        client
            .pods()
            .inNamespace(W)
            .withLabelIn("stage", "on")
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(Pod p) {
                    events.add("add " + p.getMetadata().getName());
                  }

                  @Override
                  public void onUpdate(Pod o, Pod n) {
                    events.add("update " + n.getMetadata().getName());
                  }

                  @Override
                  public void onDelete(Pod p, boolean unknown) {
                    events.add("delete " + p.getMetadata().getName());
                  }
                });
    try {
      createPod(W, "w-1", Map.of("stage", "off"));
      client
          .pods()
          .inNamespace(W)
          .withName("w-1")
          .edit(
              p ->
                  new PodBuilder(p)
                      .editMetadata()
                      .addToLabels("stage", "on")
                      .endMetadata()
                      .build());
      await(Duration.ofSeconds(5), () -> events.contains("add w-1"), "w-1 enters the selector");
      client
          .pods()
          .inNamespace(W)
          .withName("w-1")
          .edit(
              p ->
                  new PodBuilder(p)
                      .editMetadata()
                      .addToLabels("stage", "gone")
                      .endMetadata()
                      .build());
      await(Duration.ofSeconds(5), () -> events.contains("delete w-1"), "w-1 leaves the selector");
      assertEquals(List.of("add w-1", "delete w-1"), events);
    } finally {
      inf.close();
    }
  }

  @Test
  void fieldSelectedInformerFollowsBinding() {
    List<String> seen = new CopyOnWriteArrayList<>();
    SharedIndexInformer<Pod> inf =
        client
            .pods()
            .inAnyNamespace()
            .withField("spec.nodeName", "n7")
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(Pod p) {
                    seen.add(p.getMetadata().getName());
                  }

                  @Override
                  public void onUpdate(Pod o, Pod n) {}

                  @Override
                  public void onDelete(Pod p, boolean unknown) {}
                });
    try {
      createPod(W, "to-n7", Map.of());
      createPod(W, "to-n8", Map.of());
      bind(W, "to-n8", "n8");
      bind(W, "to-n7", "n7");
      await(Duration.ofSeconds(5), () -> seen.contains("to-n7"), "informer sees the bound pod");
      assertEquals(List.of("to-n7"), seen);
    } finally {
      inf.close();
    }
  }

  @Test
  void watchFromAResourceVersionReplaysWhatHappenedSince() throws Exception {
    String rv = client.pods().inNamespace(W).list().getMetadata().getResourceVersion();
    createPod(W, "late-1", Map.of());
    createPod(W, "late-2", Map.of());
    List<String> got = new CopyOnWriteArrayList<>();
    Watch w =
        client
            .pods()
            .inNamespace(W)
            .withResourceVersion(rv)
            .watch(
                new Watcher<>() {
                  @Override
                  public void eventReceived(Action a, Pod p) {
                    got.add(a + " " + p.getMetadata().getName());
                  }

                  @Override
                  public void onClose(WatcherException e) {}
                });
    try {
      await(Duration.ofSeconds(5), () -> got.size() >= 2, "replayed events");
      assertEquals(List.of("ADDED late-1", "ADDED late-2"), got);
    } finally {
      w.close();
    }
  }

  @Test
  void closingManyWatchesDoesNotFreezeTheServer() {
    List<Watch> watches = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      watches.add(
          client
              .pods()
              .inNamespace(W)
              .watch(
                  new Watcher<>() {
                    @Override
                    public void eventReceived(Action a, Pod p) {}

                    @Override
                    public void onClose(WatcherException e) {}
                  }));
    }
    long t0 = System.nanoTime();
    watches.forEach(Watch::close);
    createPod(W, "after-close", Map.of());
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertTrue(ms < 3000, "closing 20 watches and writing took " + ms + " ms");
  }
}
