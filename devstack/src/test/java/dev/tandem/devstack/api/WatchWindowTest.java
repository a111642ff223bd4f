package dev.tandem.devstack.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A watch resuming from before the retained window gets 410 Gone, as from a compacted etcd. */
class WatchWindowTest {
  private static ConfigMap cm(String name) {
    return new ConfigMapBuilder().withNewMetadata().withName(name).endMetadata().build();
  }

  @Test
  void tooOldResourceVersionIsGoneAndInformersRecover() throws Exception {
    try (LocalApiServer server = LocalApiServer.start(0, 4);
        KubernetesClient client = server.newClient()) {
      var cms = client.configMaps().inNamespace("default");
      String rv = cms.list().getMetadata().getResourceVersion();
      for (int i = 0; i < 10; i++) {
        cms.resource(cm("c" + i)).create();
      }
      CompletableFuture<WatcherException> closed = new CompletableFuture<>();
      Watch w =
          cms.withResourceVersion(rv)
              .watch(
                  new Watcher<ConfigMap>() {
                    @Override
                    public void eventReceived(Action action, ConfigMap resource) {}

                    @Override
                    public void onClose(WatcherException cause) {
                      closed.complete(cause);
                    }
                  });
      try {
        WatcherException e = closed.get(10, TimeUnit.SECONDS);
        assertTrue(e.isHttpGone(), String.valueOf(e));
      } finally {
        w.close();
      }

      // An informer lists, then watches from the list's resourceVersion: it keeps working.
      AtomicInteger adds = new AtomicInteger();
      SharedIndexInformer<ConfigMap> inf =
          cms.inform(
              new ResourceEventHandler<>() {
                @Override
                public void onAdd(ConfigMap obj) {
                  adds.incrementAndGet();
                }

                @Override
                public void onUpdate(ConfigMap oldObj, ConfigMap newObj) {}

                @Override
                public void onDelete(ConfigMap obj, boolean unknown) {}
              });
      try {
        ApiTestBase.await(Duration.ofSeconds(5), () -> adds.get() == 10, "initial list");
        for (int i = 10; i < 20; i++) {
          cms.resource(cm("c" + i)).create();
        }
        ApiTestBase.await(Duration.ofSeconds(5), () -> adds.get() == 20, "events after the list");
        assertEquals(20, inf.getStore().list().size());
      } finally {
        inf.close();
      }
    }
  }
}
