package dev.tandem.watchers;

import dev.tandem.devstack.api.LocalApiServer;
import dev.tandem.k8s.api.NodeSet;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import java.io.IOException;

/**
 * The local Kubernetes API (the dev stack's), for watcher tests that inject API faults: the mock
 * API server cannot fail on purpose.
 */
final class LocalApi {
  private LocalApi() {}

  /** Started on a free port, with the NodeSet CRD installed. */
  static LocalApiServer start() throws IOException {
    LocalApiServer api = LocalApiServer.start(0);
    api.installCrd(NodeSet.CRD_RESOURCE.substring(1));
    return api;
  }

  /**
   * A client configuration as the worker's (TandemModule): HTTP/1.1 and one retry only, where
   * fabric8 would retry a 5xx ten times and hide an outage from the test.
   */
  static ConfigBuilder workerLikeConfig(LocalApiServer api) {
    return new ConfigBuilder(Config.empty())
        .withMasterUrl(api.url())
        .withNamespace("default")
        .withHttp2Disable(true)
        .withRequestRetryBackoffLimit(1);
  }
}
