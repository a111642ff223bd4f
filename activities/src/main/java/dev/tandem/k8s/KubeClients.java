package dev.tandem.k8s;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

/**
 * How Tandem identifies itself to the Kubernetes API. Every client Tandem builds for its own use
 * (the worker, its watchers and leader election, the CLI) sends the User-Agent {@code
 * tandem/<version>}. An API server names the default field manager of a write after the
 * User-Agent's part before the first '/', so Tandem's writes show as manager {@code tandem} in
 * {@code metadata.managedFields} (fabric8's default would be {@code fabric8-kubernetes-client}).
 */
public final class KubeClients {
  private KubeClients() {}

  /** Tandem's version, as {@code tandem --version} prints it. */
  public static final String VERSION = "0.1.0";

  /** The field manager name a server derives from {@link #USER_AGENT}. */
  public static final String FIELD_MANAGER = "tandem";

  public static final String USER_AGENT = FIELD_MANAGER + "/" + VERSION;

  /** {@code config} with Tandem's User-Agent (changed in place and returned). */
  public static Config identified(Config config) {
    config.setUserAgent(USER_AGENT);
    return config;
  }

  /** A client for {@code config}, identified as Tandem. */
  public static KubernetesClient build(Config config) {
    return new KubernetesClientBuilder().withConfig(identified(config)).build();
  }
}
