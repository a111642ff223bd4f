package dev.tandem.k8s;

import io.fabric8.kubernetes.api.model.NamedAuthInfo;
import io.fabric8.kubernetes.api.model.NamedContext;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.internal.KubeConfigUtils;
import java.io.File;

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

  /**
   * A client for {@code config}, identified as Tandem, with the kubeconfig user's {@code tokenFile}
   * when it has one ({@link KubeconfigTokenFile}).
   *
   * @throws IllegalArgumentException the kubeconfig names a token file that cannot be read
   */
  public static KubernetesClient build(Config config) {
    KubeconfigTokenFile tokenFile = KubeconfigTokenFile.of(config);
    Config c = withoutIdleRefresh(identified(config));
    if (tokenFile != null) {
      c.setOauthTokenProvider(tokenFile);
    }
    return new KubernetesClientBuilder().withConfig(c).build();
  }

  /**
   * Stops fabric8 from reloading a configuration that has nothing to refresh. fabric8 7.8's token
   * interceptor calls {@link Config#refresh()} before every request until a refresh yields an OAuth
   * token (only then does it wait a minute before the next), and a refresh of a configuration
   * without a token runs the whole auto-configuration again, or re-reads and re-parses its
   * kubeconfig: for a kubeconfig with client certificates, or none, that is a YAML parse per
   * request, a cost that grows with every call the worker makes. A configuration with a token, a
   * token provider, an auth provider or an exec plugin keeps fabric8's refresh, as its credentials
   * may change (the in-cluster service account token among them).
   *
   * @return {@code config}, changed in place when it has nothing to refresh
   */
  public static Config withoutIdleRefresh(Config config) {
    if (present(config.getOauthToken())
        || present(config.getAutoOAuthToken())
        || config.getOauthTokenProvider() != null
        || config.getAuthProvider() != null
        || usesExec(config)) {
      return config;
    }
    // Config.getFile() is read from the current context's bookkeeping: without it, and without
    // auto-configuration, a refresh returns the configuration as it is.
    NamedContext ctx = config.getCurrentContext();
    if (ctx != null) {
      config.setCurrentContext(new NamedContext(ctx.getContext(), ctx.getName()));
    }
    config.setAutoConfigure(false);
    return config;
  }

  private static boolean present(String s) {
    return s != null && !s.isEmpty();
  }

  /** Whether the kubeconfig behind {@code config} gives its current user an exec plugin. */
  private static boolean usesExec(Config config) {
    try {
      NamedAuthInfo u = currentUser(config);
      return u != null && (u.getUser().getExec() != null || u.getUser().getAuthProvider() != null);
    } catch (RuntimeException e) {
      return true; // unsure: keep fabric8's behaviour
    }
  }

  /**
   * The current context's user in the kubeconfig file behind {@code config}, or null (no readable
   * file, no context, no such user).
   *
   * @throws RuntimeException the file cannot be parsed
   */
  static NamedAuthInfo currentUser(Config config) {
    File file = config.getFile();
    NamedContext ctx = config.getCurrentContext();
    if (file == null || ctx == null || ctx.getContext() == null || !file.canRead()) {
      return null;
    }
    String user = ctx.getContext().getUser();
    for (NamedAuthInfo u : KubeConfigUtils.parseConfig(file).getUsers()) {
      if (u.getName() != null && u.getName().equals(user) && u.getUser() != null) {
        return u;
      }
    }
    return null;
  }
}
