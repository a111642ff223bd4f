package dev.tandem.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Files the chart carries that are made elsewhere stay identical to their source: Helm reads only
 * files inside the chart, so the chart holds copies, and these tests refuse a stale one.
 */
class ChartFilesTest {
  private static final String REFRESH =
      " differs from its source; refresh the chart's copy with scripts/chart-files.sh (after"
          + " ./mvnw -pl activities process-classes for the CRD)";

  @Test
  void theCrdIsTheOneTheBuildGenerates() {
    Path generated =
        Chart.ROOT.resolve("activities/target/classes/META-INF/fabric8/nodesets.tandem.dev-v1.yml");
    assertTrue(
        Files.isRegularFile(generated),
        () -> generated + " is missing: build activities first (./mvnw -pl activities compile)");
    assertEquals(
        Chart.read(generated),
        Chart.read(Chart.DIR.resolve("crds/nodesets.tandem.dev-v1.yml")),
        "helm/tandem/crds/nodesets.tandem.dev-v1.yml" + REFRESH);
  }

  @Test
  void theDashboardIsTheDocumentedOne() {
    assertEquals(
        Chart.read(Chart.ROOT.resolve("docs/grafana-dashboard.json")),
        Chart.read(Chart.DIR.resolve("files/grafana-dashboard.json")),
        "helm/tandem/files/grafana-dashboard.json" + REFRESH);
  }

  @Test
  void theDashboardConfigMapCarriesTheDashboard() {
    List<HasMetadata> objects =
        Chart.render(null, Map.of("metrics.grafanaDashboard.enabled", true));
    ConfigMap cm = Chart.one(objects, ConfigMap.class);
    assertEquals(
        Chart.read(Chart.ROOT.resolve("docs/grafana-dashboard.json")).strip(),
        cm.getData().get("tandem.json").strip());
    assertEquals("1", cm.getMetadata().getLabels().get("grafana_dashboard"));
    assertTrue(Chart.ofType(Chart.render(null, Map.of()), ConfigMap.class).isEmpty());
  }
}
