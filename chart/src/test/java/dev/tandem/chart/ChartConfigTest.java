package dev.tandem.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.tandem.slurm.SlurmClientConfig;
import dev.tandem.workers.Env;
import dev.tandem.workers.TandemConfig;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * values.yaml ↔ docs/configuration.md ↔ the code: every variable the worker reads is documented and
 * settable through the chart, every value maps to a documented variable, and the worker's own
 * configuration loaders accept the environment each values file renders.
 */
class ChartConfigTest {
  /**
   * Variables the code reads that are not the worker's settings, so the chart does not set them:
   * the slurmd pods' environment Tandem writes (PodFactory), and the local Slurm script's location
   * (dev and tests only).
   */
  private static final Set<String> NOT_WORKER_SETTINGS =
      Set.of(
          "SLURM_NODE_NAME",
          "SLURM_NODE_FEATURES",
          "SLURM_NODE_GRES",
          "SLURM_NODE_PARTITIONS",
          "SLURM_NODE_WEIGHT",
          "SLURM_NODE_CONF",
          "TANDEM_NODESET",
          "TANDEM_REVISION",
          "TANDEM_NODE_ORDINAL",
          "TANDEM_HOME",
          "TANDEM_SLURM_DIR");

  /** Set by the chart from the downward API, not from values. */
  private static final Set<String> FROM_POD = Set.of("POD_NAME", "POD_NAMESPACE");

  /** Secret material: set by the chart from temporal.tls, temporal.apiKey, slurmAuth. */
  private static final Set<String> FROM_SECRETS =
      Set.of(
          "TEMPORAL_TLS_CERT",
          "TEMPORAL_TLS_KEY",
          "TEMPORAL_TLS_CA",
          "TEMPORAL_API_KEY",
          "SLURM_JWT_KEY_FILE",
          "SLURM_TOKEN_FILE",
          "SLURM_JWT");

  private static final Pattern VARIABLE =
      Pattern.compile(
          "\"((?:TANDEM|TEMPORAL|SLURM)_[A-Z0-9_]+|SCONTROL_BIN|KUBECONFIG|POD_NAME|POD_NAMESPACE)\"");

  /**
   * The worker's variables in docs/configuration.md: its sections before the CLI's, and Logging.
   */
  static Set<String> documented() {
    String doc = Chart.read(Chart.ROOT.resolve("docs/configuration.md"));
    String worker =
        doc.substring(doc.indexOf("## Temporal"), doc.indexOf("## The `tandem` command line"));
    // The launcher's JVM options and Logging: the sections after `tandem dev`'s.
    String logging = doc.substring(doc.indexOf("## The `tandem` launcher"));
    Set<String> names = new TreeSet<>();
    for (String section : List.of(worker, logging)) {
      for (String line : section.lines().toList()) {
        if (!line.startsWith("| `")) {
          continue;
        }
        String first = line.substring(1, line.indexOf('|', 1));
        Matcher m = Pattern.compile("`([A-Z][A-Z0-9_]+)`").matcher(first);
        while (m.find()) {
          names.add(m.group(1));
        }
      }
    }
    return names;
  }

  /** String literals naming variables in the worker's code (workers, watchers, activities). */
  static Set<String> readByCode() throws IOException {
    Set<String> names = new TreeSet<>();
    for (String module : List.of("workers", "watchers", "activities")) {
      try (Stream<Path> files = Files.walk(Chart.ROOT.resolve(module + "/src/main/java"))) {
        for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
          Matcher m = VARIABLE.matcher(Files.readString(f));
          while (m.find()) {
            names.add(m.group(1));
          }
        }
      }
    }
    // logback.xml reads TANDEM_LOG_LEVEL.
    if (Chart.read(Chart.ROOT.resolve("workers/src/main/resources/logback.xml"))
        .contains("TANDEM_LOG_LEVEL")) {
      names.add("TANDEM_LOG_LEVEL");
    }
    return names;
  }

  static Set<String> configKeys() throws IOException {
    JsonNode config =
        new YAMLMapper().readTree(Chart.DIR.resolve("values.yaml").toFile()).get("config");
    Set<String> keys = new TreeSet<>();
    for (Iterator<String> it = config.fieldNames(); it.hasNext(); ) {
      keys.add(it.next());
    }
    return keys;
  }

  @Test
  void everyVariableTheWorkerReadsIsDocumented() throws IOException {
    Set<String> missing = new TreeSet<>(readByCode());
    missing.removeAll(NOT_WORKER_SETTINGS);
    missing.removeAll(FROM_POD);
    missing.removeAll(documented());
    assertEquals(Set.of(), missing, "read by the worker but not in docs/configuration.md");
  }

  @Test
  void everyDocumentedVariableIsSettableAndEveryValueIsDocumented() throws IOException {
    Set<String> keys = configKeys();
    Set<String> notSettable = new TreeSet<>(documented());
    notSettable.removeAll(keys);
    notSettable.removeAll(FROM_SECRETS);
    assertEquals(Set.of(), notSettable, "documented but no key under config: in values.yaml");
    Set<String> undocumented = new TreeSet<>(keys);
    undocumented.removeAll(documented());
    assertEquals(Set.of(), undocumented, "config: keys that are no documented worker variable");
    Set<String> both = new TreeSet<>(keys);
    both.retainAll(FROM_SECRETS);
    assertEquals(Set.of(), both, "secret material must not be a plain value");
  }

  @Test
  void everyConfigValueReachesTheWorkerEnvironment() throws IOException {
    Map<String, Object> sets = new HashMap<>();
    for (String k : configKeys()) {
      sets.put("config." + k, k.equals("TANDEM_HTTP_PORT") ? "9191" : "v-" + k);
    }
    sets.put("config.SLURM_REST_URL", "http://x:1");
    Map<String, String> env = new HashMap<>();
    for (EnvVar e : Chart.workerEnv(Chart.render(null, sets))) {
      env.put(e.getName(), e.getValue());
    }
    for (String k : configKeys()) {
      assertEquals(sets.get("config." + k), env.get(k), k);
    }
  }

  static Stream<Path> valuesFiles() {
    return Stream.concat(
        Stream.of(Chart.DIR.resolve("values.yaml")), Chart.ciValuesFiles().stream());
  }

  /**
   * The worker's loaders (TandemConfig, SlurmClientConfig) accept what each values file renders.
   */
  @ParameterizedTest
  @MethodSource("valuesFiles")
  void theWorkersLoadersAcceptTheRenderedEnvironment(Path values, @TempDir Path tmp)
      throws IOException {
    List<HasMetadata> objects = Chart.render(values, Map.of());
    Map<String, String> env = new HashMap<>();
    for (EnvVar e : Chart.workerEnv(objects)) {
      String v = e.getValue();
      if (e.getValueFrom() != null) {
        v = e.getValueFrom().getFieldRef() != null ? "from-pod" : "from-secret";
      } else if (v.startsWith("/etc/tandem/")) {
        // A file on a Secret volume: the loaders read it at start; a stand-in with content.
        Path f = tmp.resolve(v.substring(1));
        Files.createDirectories(f.getParent());
        Files.writeString(f, "stand-in for " + v);
        v = f.toString();
      }
      env.put(e.getName(), v);
    }
    TandemConfig config = TandemConfig.from(new Env(env));
    assertEquals(Integer.parseInt(env.get("TANDEM_HTTP_PORT")), config.http().port());
    assertTrue(SlurmClientConfig.fromEnv(env) != null);
  }
}
