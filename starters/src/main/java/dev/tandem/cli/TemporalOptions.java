package dev.tandem.cli;

import com.uber.m3.tally.NoopScope;
import dev.tandem.workers.TandemConfig;
import dev.tandem.workers.TemporalConnection;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * How to reach Temporal, with the Temporal CLI's flag names and environment variables, so that
 * {@code tandem} and {@code temporal} are pointed at the same server the same way.
 */
public final class TemporalOptions {
  @Option(
      names = "--address",
      defaultValue = "${env:TEMPORAL_ADDRESS:-127.0.0.1:7233}",
      description = "Temporal frontend host:port (env TEMPORAL_ADDRESS; default ${DEFAULT-VALUE})")
  String address;

  @Option(
      names = "--namespace",
      defaultValue = "${env:TEMPORAL_NAMESPACE:-default}",
      description = "Temporal namespace (env TEMPORAL_NAMESPACE; default ${DEFAULT-VALUE})")
  String namespace;

  @Option(
      names = "--tls-cert-path",
      defaultValue = "${env:TEMPORAL_TLS_CERT}",
      description = "client certificate for mTLS (env TEMPORAL_TLS_CERT)")
  String tlsCert;

  @Option(
      names = "--tls-key-path",
      defaultValue = "${env:TEMPORAL_TLS_KEY}",
      description = "client key for mTLS (env TEMPORAL_TLS_KEY)")
  String tlsKey;

  @Option(
      names = "--tls-ca-path",
      defaultValue = "${env:TEMPORAL_TLS_CA}",
      description = "CA certificate to trust (env TEMPORAL_TLS_CA)")
  String tlsCa;

  @Option(
      names = "--tls-server-name",
      defaultValue = "${env:TEMPORAL_TLS_SERVER_NAME}",
      description = "server name to verify (env TEMPORAL_TLS_SERVER_NAME)")
  String tlsServerName;

  @Option(
      names = "--tls",
      defaultValue = "${env:TEMPORAL_TLS:-false}",
      description = "use TLS with the system's CAs (env TEMPORAL_TLS)")
  boolean tls;

  @Option(
      names = "--api-key",
      defaultValue = "${env:TEMPORAL_API_KEY}",
      description = "API key (env TEMPORAL_API_KEY)")
  String apiKey;

  @Option(
      names = "--query-timeout",
      defaultValue = "${env:TANDEM_QUERY_TIMEOUT:-5s}",
      description =
          "how long to wait for Temporal and the worker to answer each call"
              + " (env TANDEM_QUERY_TIMEOUT; default ${DEFAULT-VALUE})")
  String queryTimeout;

  TandemConfig.Temporal toConfig() {
    boolean useTls = tls || tlsCert != null || tlsCa != null || apiKey != null;
    return new TandemConfig.Temporal(
        address, namespace, tlsCert, tlsKey, tlsCa, tlsServerName, useTls, apiKey);
  }

  /** A session whose calls are bounded by {@code --query-timeout}; the caller closes it. */
  TemporalSession connect() {
    Duration timeout = Durations.parse(queryTimeout);
    if (timeout.isZero()) {
      throw new CliException("--query-timeout must be longer than 0");
    }
    WorkflowServiceStubs stubs = TemporalConnection.connect(toConfig(), new NoopScope());
    WorkflowClient client =
        WorkflowClient.newInstance(
            stubs, WorkflowClientOptions.newBuilder().setNamespace(namespace).build());
    return new TemporalSession(client, address, namespace, timeout);
  }
}
