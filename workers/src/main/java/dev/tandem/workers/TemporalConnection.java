package dev.tandem.workers;

import com.uber.m3.tally.RootScopeBuilder;
import com.uber.m3.tally.Scope;
import io.micrometer.core.instrument.MeterRegistry;
import io.temporal.common.reporter.MicrometerClientStatsReporter;
import io.temporal.serviceclient.SimpleSslContextBuilder;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import javax.net.ssl.TrustManagerFactory;

/**
 * Opens the gRPC connection to Temporal the way the Temporal CLI's flags describe it: address,
 * namespace, optional TLS (client certificate, CA, server name) and API key. The SDK's own metrics
 * go to the same Micrometer registry as Tandem's.
 */
public final class TemporalConnection {
  private TemporalConnection() {}

  /**
   * While Temporal cannot be reached, gRPC's reconnect back-off grows to two minutes; the SDK cuts
   * it short every this often (its default: 10 s), so a worker whose polls wait for the connection
   * ({@link PollsWaitForConnection}) is back at work within about this long of Temporal answering
   * again. A reconnect attempt is one TCP (and TLS) handshake.
   */
  static final Duration RECONNECT_AT_LEAST_EVERY = Duration.ofSeconds(2);

  public static Scope metricsScope(MeterRegistry registry) {
    return new RootScopeBuilder()
        .reporter(new MicrometerClientStatsReporter(registry))
        .reportEvery(com.uber.m3.util.Duration.ofSeconds(10));
  }

  public static WorkflowServiceStubs connect(TandemConfig.Temporal t, Scope metrics) {
    WorkflowServiceStubsOptions.Builder b =
        WorkflowServiceStubsOptions.newBuilder()
            .setTarget(t.address())
            .setMetricsScope(metrics)
            .setRpcTimeout(Duration.ofSeconds(10))
            .addGrpcClientInterceptor(new PollsWaitForConnection())
            .setConnectionBackoffResetFrequency(RECONNECT_AT_LEAST_EVERY);
    if (t.tls()) {
      try {
        SimpleSslContextBuilder ssl =
            t.tlsCert() != null
                ? SimpleSslContextBuilder.forPKCS8(open(t.tlsCert()), open(t.tlsKey()))
                : SimpleSslContextBuilder.noKeyOrCertChain();
        if (t.tlsCa() != null) {
          ssl.setTrustManager(trustManagerFactory(Path.of(t.tlsCa())).getTrustManagers()[0]);
        }
        b.setSslContext(ssl.build());
      } catch (IOException | java.security.GeneralSecurityException e) {
        throw new ConfigException("cannot set up TLS to Temporal: " + e.getMessage());
      }
      if (t.tlsServerName() != null) {
        b.setChannelInitializer(c -> c.overrideAuthority(t.tlsServerName()));
      }
    }
    if (t.apiKey() != null) {
      String key = t.apiKey();
      b.addApiKey(() -> key);
    }
    return WorkflowServiceStubs.newServiceStubs(b.build());
  }

  private static InputStream open(String file) throws IOException {
    Path p = Path.of(file);
    if (!Files.isReadable(p)) {
      throw new ConfigException("cannot read " + file);
    }
    return Files.newInputStream(p);
  }

  private static TrustManagerFactory trustManagerFactory(Path ca)
      throws IOException, java.security.GeneralSecurityException {
    KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
    ks.load(null, null);
    try (InputStream in = open(ca.toString())) {
      int i = 0;
      for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        ks.setCertificateEntry("ca-" + i++, c);
      }
    }
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(ks);
    return tmf;
  }
}
