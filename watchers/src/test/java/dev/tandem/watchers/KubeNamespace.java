package dev.tandem.watchers;

import dev.tandem.devstack.faults.KubeApiProxy;
import dev.tandem.devstack.kube.LocalKubernetes;
import dev.tandem.devstack.kube.SharedKubernetes;
import dev.tandem.k8s.NodeSetResources;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * {@code @ExtendWith(KubeNamespace.class)}: a namespace of its own for each test on the JVM's real
 * control plane ({@link SharedKubernetes}, NodeSet CRD installed), and a cluster-admin client whose
 * default namespace it is in the class's {@code static KubernetesClient} field ({@code
 * client.getNamespace()} names it, {@code client.getConfiguration()} is the plane's admin access).
 *
 * <p>The watchers watch every namespace and every Node, so what a test leaves is gone before the
 * next one starts: its pods (deleted at once, as no kubelet would finish a graceful delete), its
 * NodeSets and the Nodes it created (finalizers lifted). The namespace itself goes in the
 * background.
 */
public final class KubeNamespace implements BeforeEachCallback, AfterEachCallback {
  private static final ExtensionContext.Namespace STORE =
      ExtensionContext.Namespace.create(KubeNamespace.class);

  private static KubernetesClient admin;

  /** The plane's cluster-admin client, shared by the JVM's tests; the CRD is installed first. */
  static synchronized KubernetesClient admin() throws IOException {
    if (admin == null) {
      LocalKubernetes kube = SharedKubernetes.get();
      KubernetesClient c = kube.adminClient();
      kube.installNodeSetCrd(c);
      admin = c;
    }
    return admin;
  }

  /** A fault proxy in front of the JVM's plane; the caller closes it. */
  static KubeApiProxy proxy() throws IOException {
    return KubeApiProxy.start(SharedKubernetes.get());
  }

  /** The proxy's worker-like configuration, in the namespace of {@code client}. */
  static Config through(KubeApiProxy proxy, KubernetesClient client) {
    return new ConfigBuilder(proxy.config()).withNamespace(client.getNamespace()).build();
  }

  @Override
  public void beforeEach(ExtensionContext ctx) throws Exception {
    KubernetesClient a = admin();
    String ns = name(ctx.getRequiredTestClass());
    a.namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
        .create();
    // Pods are refused until the controller manager made the namespace's ServiceAccount.
    Wait.until(
        "ServiceAccount default in " + ns,
        () -> a.serviceAccounts().inNamespace(ns).withName("default").get() != null);
    Config c = new ConfigBuilder(a.getConfiguration()).withNamespace(ns).build();
    KubernetesClient client = new KubernetesClientBuilder().withConfig(c).build();
    ExtensionContext.Store store = ctx.getStore(STORE);
    store.put("ns", ns);
    store.put("nodes", nodeNames(a));
    store.put("client", client);
    field(ctx.getRequiredTestClass()).set(null, client);
  }

  @Override
  public void afterEach(ExtensionContext ctx) throws Exception {
    ExtensionContext.Store store = ctx.getStore(STORE);
    KubernetesClient client = store.remove("client", KubernetesClient.class);
    if (client != null) {
      client.close();
    }
    String ns = store.remove("ns", String.class);
    @SuppressWarnings("unchecked")
    Set<String> before = store.remove("nodes", Set.class);
    if (ns != null) {
      clean(admin(), ns, before);
    }
  }

  /** {@code <test class>-<random>}: unique, and the audit log tells whose calls they were. */
  private static String name(Class<?> test) {
    String cls = test.getSimpleName().toLowerCase(Locale.ROOT);
    return cls.substring(0, Math.min(cls.length(), 40))
        + "-"
        + UUID.randomUUID().toString().substring(0, 8);
  }

  private static Set<String> nodeNames(KubernetesClient a) {
    return a.nodes().list().getItems().stream()
        .map(n -> n.getMetadata().getName())
        .collect(Collectors.toSet());
  }

  private static void clean(KubernetesClient a, String ns, Set<String> nodesBefore) {
    a.pods().inNamespace(ns).withGracePeriod(0).delete();
    var nodeSets = NodeSetResources.generic(a).inNamespace(ns);
    for (HasMetadata s : nodeSets.list().getItems()) {
      nodeSets
          .withName(s.getMetadata().getName())
          .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"finalizers\":null}}");
    }
    nodeSets.delete();
    for (String n : nodeNames(a)) {
      if (!nodesBefore.contains(n)) {
        // Tandem's finalizer (NodeFinalizer) on a node that hosted a test's slurmd pod.
        a.nodes()
            .withName(n)
            .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"finalizers\":null}}");
        a.nodes().withName(n).delete();
      }
    }
    Wait.until(
        "pods, NodeSets and new Nodes of " + ns + " gone",
        () ->
            a.pods().inNamespace(ns).list().getItems().isEmpty()
                && nodeSets.list().getItems().isEmpty()
                && nodesBefore.containsAll(nodeNames(a)));
    a.namespaces().withName(ns).delete();
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
