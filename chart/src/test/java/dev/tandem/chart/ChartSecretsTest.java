package dev.tandem.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Secrets only by reference: mounted from or pointing at Secrets the user made, never inline. */
class ChartSecretsTest {
  private static final List<String> SECRET_VALUED = List.of("TEMPORAL_API_KEY", "SLURM_JWT");
  private static final List<String> SECRET_FILES =
      List.of(
          "TEMPORAL_TLS_CERT",
          "TEMPORAL_TLS_KEY",
          "TEMPORAL_TLS_CA",
          "SLURM_JWT_KEY_FILE",
          "SLURM_TOKEN_FILE");

  private static EnvVar env(List<HasMetadata> objects, String name) {
    return Chart.workerEnv(objects).stream()
        .filter(e -> e.getName().equals(name))
        .findFirst()
        .orElse(null);
  }

  /** The Secret whose volume is mounted at the directory holding {@code path}. */
  private static String secretBehind(List<HasMetadata> objects, String path) {
    PodSpec pod = Chart.worker(objects).getSpec().getTemplate().getSpec();
    VolumeMount m =
        pod.getContainers().get(0).getVolumeMounts().stream()
            .filter(v -> path.startsWith(v.getMountPath() + "/"))
            .findFirst()
            .orElseThrow(() -> new AssertionError(path + " is on no mounted volume"));
    Volume v =
        pod.getVolumes().stream()
            .filter(x -> x.getName().equals(m.getName()))
            .findFirst()
            .orElseThrow();
    assertNotNull(v.getSecret(), () -> path + " is not on a Secret volume");
    return v.getSecret().getSecretName();
  }

  /** Every secret-bearing variable is a file on a Secret volume or a secretKeyRef. */
  private static void assertOnlyReferences(List<HasMetadata> objects) {
    assertTrue(Chart.ofType(objects, Secret.class).isEmpty(), "the chart renders no Secret");
    for (String n : SECRET_VALUED) {
      EnvVar e = env(objects, n);
      if (e != null) {
        assertNull(e.getValue(), n + " inline");
        assertNotNull(e.getValueFrom().getSecretKeyRef(), n);
      }
    }
    for (String n : SECRET_FILES) {
      EnvVar e = env(objects, n);
      if (e != null) {
        secretBehind(objects, e.getValue());
      }
    }
  }

  static Stream<Path> valuesFiles() {
    return Chart.ciValuesFiles().stream();
  }

  @ParameterizedTest
  @MethodSource("valuesFiles")
  void everyValuesFileReferencesSecretsOnly(Path values) {
    assertOnlyReferences(Chart.render(values, Map.of()));
  }

  @Test
  void temporalCloudMtlsApiKeyAndTokenFileAreReferences() {
    List<HasMetadata> objects =
        Chart.render(Chart.DIR.resolve("ci/temporal-cloud-values.yaml"), Map.of());
    assertOnlyReferences(objects);
    assertEquals(
        "temporal-cloud-mtls", secretBehind(objects, env(objects, "TEMPORAL_TLS_CERT").getValue()));
    assertEquals(
        "temporal-cloud-mtls", secretBehind(objects, env(objects, "TEMPORAL_TLS_KEY").getValue()));
    assertEquals(
        "temporal-cloud-mtls", secretBehind(objects, env(objects, "TEMPORAL_TLS_CA").getValue()));
    assertTrue(env(objects, "TEMPORAL_TLS_CA").getValue().endsWith("/ca.crt"));
    assertEquals(
        "temporal-cloud-api-key",
        env(objects, "TEMPORAL_API_KEY").getValueFrom().getSecretKeyRef().getName());
    assertEquals(
        "api-key", env(objects, "TEMPORAL_API_KEY").getValueFrom().getSecretKeyRef().getKey());
    assertEquals("slurm-token", secretBehind(objects, env(objects, "SLURM_TOKEN_FILE").getValue()));
    assertNull(env(objects, "SLURM_JWT_KEY_FILE"));
  }

  @Test
  void aJwtKeyIsAFileAndAFixedTokenASecretKeyRef() {
    List<HasMetadata> key = Chart.render(null, Map.of("slurmAuth.existingSecret", "k"));
    assertOnlyReferences(key);
    assertEquals("k", secretBehind(key, env(key, "SLURM_JWT_KEY_FILE").getValue()));
    List<HasMetadata> token =
        Chart.render(Chart.DIR.resolve("ci/monitoring-values.yaml"), Map.of());
    assertOnlyReferences(token);
    assertEquals("slurm-token", env(token, "SLURM_JWT").getValueFrom().getSecretKeyRef().getName());
  }

  @Test
  void secretsAsPlainValuesAreRefused() {
    for (String n : List.of("TEMPORAL_API_KEY", "SLURM_JWT", "TEMPORAL_TLS_CERT")) {
      Exception e =
          assertThrows(
              Exception.class, () -> Chart.template(null, Map.of("config." + n, "s3cr3t")));
      assertTrue(e.getMessage().contains("secrets are not values"), e.getMessage());
    }
  }
}
