package dev.tandem.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * ServiceMonitor and PrometheusRule: scrape the metrics Service; alert only on exported metrics.
 */
class ChartMonitoringTest {
  private static final Path VALUES = Chart.DIR.resolve("ci/monitoring-values.yaml");

  private static GenericKubernetesResource kind(List<HasMetadata> objects, String kind) {
    return Chart.ofType(objects, GenericKubernetesResource.class).stream()
        .filter(o -> o.getKind().equals(kind))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + kind));
  }

  /**
   * Prometheus names of the meters the code registers ({@code "tandem.slurm.up"} →
   * tandem_slurm_up).
   */
  static Set<String> exportedByCode() throws IOException {
    Set<String> names = new TreeSet<>();
    // Micrometer meters are dotted; the workflows' (through the SDK's metrics scope) are not.
    Pattern meter = Pattern.compile("\"(tandem[._][a-z._]+)\"");
    for (String module : List.of("workers", "watchers", "activities", "workflows")) {
      try (Stream<Path> files = Files.walk(Chart.ROOT.resolve(module + "/src/main/java"))) {
        for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
          Matcher m = meter.matcher(Files.readString(f));
          while (m.find()) {
            names.add(m.group(1).replace('.', '_'));
          }
        }
      }
    }
    return names;
  }

  @Test
  void theServiceMonitorScrapesTheMetricsService() {
    List<HasMetadata> objects = Chart.render(VALUES, Map.of());
    GenericKubernetesResource sm = kind(objects, "ServiceMonitor");
    Service svc = Chart.one(objects, Service.class);
    @SuppressWarnings("unchecked")
    Map<String, Object> selector =
        (Map<String, Object>)
            ((Map<String, Object>) sm.getAdditionalProperties().get("spec")).get("selector");
    assertEquals(svc.getSpec().getSelector(), selector.get("matchLabels"));
    assertTrue(
        sm.getAdditionalProperties()
            .toString()
            .contains("port=" + svc.getSpec().getPorts().get(0).getName()));
    assertEquals("prometheus", sm.getMetadata().getLabels().get("release"));
  }

  @Test
  void alertsUseOnlyMetricsTheWorkerExports() throws IOException {
    GenericKubernetesResource rule = kind(Chart.render(VALUES, Map.of()), "PrometheusRule");
    String spec = rule.getAdditionalProperties().get("spec").toString();
    Matcher m = Pattern.compile("\\b(tandem_[a-z_]+)").matcher(spec);
    Set<String> used = new TreeSet<>();
    while (m.find()) {
      used.add(m.group(1));
    }
    assertTrue(used.contains("tandem_slurm_up"), spec);
    Set<String> exported = exportedByCode();
    String documented = Chart.read(Chart.ROOT.resolve("docs/configuration.md"));
    for (String metric : used) {
      // A counter is exported as <name>_total.
      String meter = metric.endsWith("_total") ? metric.substring(0, metric.length() - 6) : metric;
      assertTrue(
          exported.contains(metric) || exported.contains(meter),
          () -> metric + " is not a meter the code registers: " + exported);
      assertTrue(
          documented.contains("`" + metric), () -> metric + " is not in docs/configuration.md");
    }
    for (String alert :
        List.of(
            "TandemSlurmUnreachable",
            "TandemKubernetesUnreachable",
            "TandemNoWatcherLeader",
            "TandemDrainStuck",
            "TandemRemediationFailed")) {
      assertTrue(spec.contains("alert=" + alert), alert);
    }
    assertTrue(
        spec.contains("tandem_slurm_drain_oldest_seconds > 86400"),
        "the drain-stuck threshold comes from values: " + spec);
    assertTrue(
        spec.contains("outcome=\"Failed\"}[6h]"), "the failed window comes from values: " + spec);
  }

  @Test
  void offByDefault() {
    List<HasMetadata> objects = Chart.render(null, Map.of());
    assertTrue(
        Chart.ofType(objects, GenericKubernetesResource.class).isEmpty(), objects.toString());
  }
}
