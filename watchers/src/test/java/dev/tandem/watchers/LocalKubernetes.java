package dev.tandem.watchers;

import dev.tandem.devstack.api.LocalApiServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * {@code @ExtendWith(LocalKubernetes.class)}: the dev stack's local Kubernetes API (with the
 * NodeSet CRD), a fresh one for each test (like a new cluster: graceful deletes of one test cannot
 * leak into the next), its client in the class's {@code static KubernetesClient} field.
 *
 * <p>Used instead of fabric8's {@code @EnableKubernetesMockClient}: the plain mock server can
 * freeze for 10 to 60 s after a watch closes, which made these tests fail now and then on a busy
 * machine, and it differs from a real API server in ways the local API does not (selectors,
 * conflicts, status).
 */
public final class LocalKubernetes implements BeforeEachCallback, AfterEachCallback {
  private static final ExtensionContext.Namespace NS =
      ExtensionContext.Namespace.create(LocalKubernetes.class);

  @Override
  public void beforeEach(ExtensionContext ctx) throws Exception {
    LocalApiServer api = LocalApi.start();
    KubernetesClient client = api.newClient();
    ctx.getStore(NS).put("api", api);
    ctx.getStore(NS).put("client", client);
    field(ctx.getRequiredTestClass()).set(null, client);
  }

  @Override
  public void afterEach(ExtensionContext ctx) {
    KubernetesClient client = ctx.getStore(NS).remove("client", KubernetesClient.class);
    LocalApiServer api = ctx.getStore(NS).remove("api", LocalApiServer.class);
    if (client != null) {
      client.close();
    }
    if (api != null) {
      api.close();
    }
  }

  private static Field field(Class<?> c) {
    for (Field f : c.getDeclaredFields()) {
      if (f.getType() == KubernetesClient.class && Modifier.isStatic(f.getModifiers())) {
        f.setAccessible(true);
        return f;
      }
    }
    throw new IllegalStateException(c + " has no static KubernetesClient field");
  }
}
