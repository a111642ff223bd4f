package dev.tandem.workers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tandem.slurm.SlurmClient;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad-input catalogue (docs/reliability.md): the worker's environment. A bad value stops the
 * process at start, before it polls or watches anything, with {@code tandem: configuration error:
 * <message>} and exit code 2 (WorkerMain, {@code tandem worker}); the message names the variable.
 * Each test asserts that message, reading the configuration the way the worker does at start
 * (TandemConfig, then the Guice providers of the Kubernetes and Slurm clients).
 */
class BadConfigTest {
  @TempDir Path tmp;

  /** What the worker says for {@code variables} on top of a valid environment. */
  private static String refused(Map<String, String> variables) {
    Map<String, String> env =
        new HashMap<>(
            Map.of(
                "SLURM_REST_URL", "http://127.0.0.1:6820",
                "SLURM_REST_API", "v0.0.44",
                "SLURM_JWT", "token"));
    env.putAll(variables);
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> {
              TandemWorker w = new TandemWorker(env);
              w.get(KubernetesClient.class);
              w.get(SlurmClient.class);
            });
    return e.getMessage();
  }

  private static String refused(String variable, String value) {
    return refused(Map.of(variable, value));
  }

  @Test
  void durationWithAnUnknownUnit() {
    assertEquals(
        "TANDEM_NODE_POLL=\"5x\" is not a duration like 500ms, 2s, 5m or 1h",
        refused("TANDEM_NODE_POLL", "5x"));
  }

  /** Used to stop the process with a NumberFormatException. */
  @Test
  void durationBeyondAnyNumber() {
    assertEquals(
        "TANDEM_SLURM_POLL_INTERVAL=\"99999999999999999999h\" is too long a duration",
        refused("TANDEM_SLURM_POLL_INTERVAL", "99999999999999999999h"));
  }

  @Test
  void durationTooShort() {
    assertEquals(
        "TANDEM_SLURM_POLL_INTERVAL=10ms is too short: at least 100ms",
        refused("TANDEM_SLURM_POLL_INTERVAL", "10ms"));
  }

  @Test
  void portOutOfRange() {
    assertEquals(
        "TANDEM_HTTP_PORT=70000 is out of range: expected 0 to 65535",
        refused("TANDEM_HTTP_PORT", "70000"));
  }

  @Test
  void booleanThatIsNot() {
    assertEquals(
        "TANDEM_LEADER_ELECTION=\"maybe\" is not true or false",
        refused("TANDEM_LEADER_ELECTION", "maybe"));
  }

  /** Used to fail only when the HTTP endpoints bound, with the JDK's words. */
  @Test
  void bindAddressThatIsNone() {
    assertEquals(
        "TANDEM_HTTP_BIND=\"not an address\" is not an address to listen on, e.g. 0.0.0.0 or"
            + " 127.0.0.1",
        refused("TANDEM_HTTP_BIND", "not an address"));
  }

  @Test
  void temporalAddressWithoutAPort() {
    assertEquals(
        "TEMPORAL_ADDRESS=\"localhost\" is not host:port",
        refused("TEMPORAL_ADDRESS", "localhost"));
  }

  /** Used to be accepted: gRPC then failed on every call. */
  @Test
  void temporalAddressWithAPortOutOfRange() {
    assertEquals(
        "Temporal address \"127.0.0.1:99999\" (TEMPORAL_ADDRESS or --address) is not host:port,"
            + " e.g. 127.0.0.1:7233",
        refused("TEMPORAL_ADDRESS", "127.0.0.1:99999"));
  }

  @Test
  void clientCertificateWithoutItsKey() {
    assertEquals(
        "TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY must be set together",
        refused("TEMPORAL_TLS_CERT", tmp.resolve("cert.pem").toString()));
  }

  /** Used to say "cannot read <file>" without the variable, when connecting. */
  @Test
  void certificateFileMissing() {
    String cert = tmp.resolve("missing.pem").toString();
    assertEquals(
        "TEMPORAL_TLS_CERT=" + cert + " cannot be read (no such file, or no access)",
        refused(Map.of("TEMPORAL_TLS_CERT", cert, "TEMPORAL_TLS_KEY", cert)));
  }

  /** Used to end in a Guice provisioning error that never named the variable. */
  @Test
  void kubeconfigThatIsNotYaml() throws Exception {
    Path f = Files.writeString(tmp.resolve("kubeconfig"), "this: is: not: yaml: [");
    assertEquals(
        "KUBECONFIG=" + f + " is not a usable kubeconfig: mapping values are not allowed here",
        refused("KUBECONFIG", f.toString()));
  }

  @Test
  void kubeconfigThatIsEmpty() throws Exception {
    Path f = Files.writeString(tmp.resolve("kubeconfig"), "");
    assertEquals(
        "KUBECONFIG=" + f + " is not a usable kubeconfig: Could not create Config from kubeconfig",
        refused("KUBECONFIG", f.toString()));
  }

  @Test
  void kubeconfigMissing() {
    String f = tmp.resolve("nope").toString();
    assertEquals("KUBECONFIG=" + f + " cannot be read: " + f, refused("KUBECONFIG", f));
  }

  /** Used not to name the variable. */
  @Test
  void slurmUrlWithAnotherScheme() {
    assertEquals(
        "SLURM_REST_URL=ftp://slurm:6820: slurmrestd URL must be http(s)://host:port:"
            + " ftp://slurm:6820",
        refused("SLURM_REST_URL", "ftp://slurm:6820"));
  }

  /** Used to say only "Expected closing bracket for IPv6 address at index 11: http://[bad". */
  @Test
  void slurmUrlThatIsNoUrl() {
    assertEquals(
        "SLURM_REST_URL=http://[bad is not a URL like http://127.0.0.1:6820",
        refused("SLURM_REST_URL", "http://[bad"));
  }

  @Test
  void slurmApiVersionUnknown() {
    assertEquals(
        "SLURM_REST_API=v0.0.99 is not supported; use auto or one of [V0_0_38, V0_0_41, V0_0_44]",
        refused("SLURM_REST_API", "v0.0.99"));
  }

  /** Used to say only "For input string: ...". */
  @Test
  void slurmTimeoutBeyondAnyNumber() {
    assertEquals(
        "SLURM_REQUEST_TIMEOUT is too large: 99999999999999999999",
        refused("SLURM_REQUEST_TIMEOUT", "99999999999999999999"));
  }

  /** Used to be accepted: every Slurm call then failed as unauthorized. */
  @Test
  void jwtKeyFileMissing() {
    String f = tmp.resolve("jwt.key").toString();
    assertEquals(
        "SLURM_JWT_KEY_FILE=" + f + " cannot be read (no such file, or no access)",
        refused("SLURM_JWT_KEY_FILE", f));
  }

  @Test
  void topologyThatIsNeitherTreeNorBlock() {
    assertEquals(
        "TANDEM_TOPOLOGY=\"mesh:a\": it must start with tree: or block: (or be off); expected"
            + " tree:<top-label>,...,<leaf-label>, block:<label> or off",
        refused("TANDEM_TOPOLOGY", "mesh:a"));
  }

  @Test
  void topologyBlockWithTwoLabels() {
    assertEquals(
        "TANDEM_TOPOLOGY=\"block:a,b\": block takes exactly one label; expected"
            + " tree:<top-label>,...,<leaf-label>, block:<label> or off",
        refused("TANDEM_TOPOLOGY", "block:a,b"));
  }
}
