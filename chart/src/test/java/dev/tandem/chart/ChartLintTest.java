package dev.tandem.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code helm lint} and {@code helm template} over the defaults and every values file in ci/. */
class ChartLintTest {
  static Stream<Path> valuesFiles() {
    return Chart.ciValuesFiles().stream();
  }

  @Test
  void theChartLintsStrictly() {
    LintResult r = new Helm(Chart.DIR).lint().strict().call();
    assertFalse(r.isFailed(), () -> "helm lint --strict: " + r.getMessages());
  }

  @Test
  void thereAreValuesFilesForTheCommonSetups() {
    List<String> names = valuesFiles().map(p -> p.getFileName().toString()).toList();
    assertTrue(names.size() >= 3, () -> "helm/tandem/ci has " + names);
  }

  @ParameterizedTest
  @MethodSource("valuesFiles")
  void everyValuesFileRendersIntoKubernetesObjects(Path values) {
    List<HasMetadata> objects = Chart.render(values, Map.of());
    assertTrue(objects.size() >= 6, () -> values + " rendered only " + objects);
    for (HasMetadata o : objects) {
      assertTrue(o.getMetadata().getName() != null, () -> "no name: " + o);
    }
    var c = Chart.worker(objects).getSpec().getTemplate().getSpec().getContainers().get(0);
    assertEquals("/healthz", c.getLivenessProbe().getHttpGet().getPath());
    assertEquals("/readyz", c.getReadinessProbe().getHttpGet().getPath());
    assertTrue(c.getImage().startsWith("ghcr.io/tandem-dev/tandem:"), c.getImage());
    // The worker's rules do not depend on the setup: the RBAC check covers every values file.
    assertEquals(
        ChartRbacIT.granted(Chart.render(null, Map.of())),
        ChartRbacIT.granted(objects),
        values.toString());
  }
}
