package dev.tandem.chart;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** The chart {@code helm/tandem}, rendered with helm-java and parsed into fabric8 model objects. */
final class Chart {
  /** The repository root: Maven passes it; from an IDE the module's parent directory. */
  static final Path ROOT =
      Path.of(
          System.getProperty("tandem.root", Path.of("").toAbsolutePath().getParent().toString()));

  static final Path DIR = ROOT.resolve("helm/tandem");

  /** What {@code helm template} assumes the cluster runs (its own default, 1.20, is too old). */
  static final String KUBE_VERSION = "1.29.0";

  private Chart() {}

  /** The values files under {@code helm/tandem/ci}, each a common setup. */
  static List<Path> ciValuesFiles() {
    try (Stream<Path> s = Files.list(DIR.resolve("ci"))) {
      return s.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code helm template} with the values file (may be null) and {@code --set}s, as text. */
  static String template(Path valuesFile, Map<String, ?> sets) {
    return template(DIR, valuesFile, sets);
  }

  /** As {@link #template(Path, Map)}, of the chart in {@code chartDir}. */
  static String template(Path chartDir, Path valuesFile, Map<String, ?> sets) {
    TemplateCommand t =
        new Helm(chartDir)
            .template()
            .withName("tandem")
            .withNamespace("tandem")
            .withKubeVersion(KUBE_VERSION);
    if (valuesFile != null) {
      t = t.withValuesFile(valuesFile);
    }
    for (Map.Entry<String, ?> e : sets.entrySet()) {
      t = t.set(e.getKey(), e.getValue());
    }
    return t.call();
  }

  /** Every document of a render, parsed (kinds fabric8 does not know become generic resources). */
  static List<HasMetadata> parse(String rendered) {
    List<HasMetadata> out = new ArrayList<>();
    for (String doc : rendered.split("(?m)^---\\s*$")) {
      if (doc.lines().allMatch(l -> l.isBlank() || l.trim().startsWith("#"))) {
        continue;
      }
      Object o = Serialization.unmarshal(doc);
      if (!(o instanceof HasMetadata h)) {
        throw new AssertionError("not a Kubernetes object: " + doc);
      }
      out.add(h);
    }
    return out;
  }

  static List<HasMetadata> render(Path valuesFile, Map<String, ?> sets) {
    return parse(template(valuesFile, sets));
  }

  /**
   * The chart's hooks, rendered. helm-java 0.0.21's template leaves hooks out (its
   * manusa/helm-java#416 adds them), so this renders a copy of the chart whose hook annotations are
   * renamed; everything else is the chart's own template.
   */
  static List<HasMetadata> renderHooks(Path tmp, Path valuesFile, Map<String, ?> sets) {
    try {
      Path copy = tmp.resolve("tandem");
      try (Stream<Path> files = Files.walk(DIR)) {
        for (Path f : files.toList()) {
          Path to = copy.resolve(DIR.relativize(f).toString());
          if (Files.isDirectory(f)) {
            Files.createDirectories(to);
          } else {
            Files.writeString(
                to, Files.readString(f).replace("helm.sh/hook", "test.tandem.dev/hook"));
          }
        }
      }
      return parse(template(copy, valuesFile, sets)).stream()
          .filter(
              o ->
                  o.getMetadata().getAnnotations() != null
                      && o.getMetadata().getAnnotations().containsKey("test.tandem.dev/hook"))
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static <T extends HasMetadata> List<T> ofType(List<HasMetadata> objects, Class<T> type) {
    return objects.stream().filter(type::isInstance).map(type::cast).toList();
  }

  static <T extends HasMetadata> T one(List<HasMetadata> objects, Class<T> type) {
    List<T> all = ofType(objects, type);
    if (all.size() != 1) {
      throw new AssertionError("expected one " + type.getSimpleName() + ", got " + all.size());
    }
    return all.get(0);
  }

  /** The worker Deployment (the one with a container named worker). */
  static Deployment worker(List<HasMetadata> objects) {
    List<Deployment> d =
        ofType(objects, Deployment.class).stream()
            .filter(
                x ->
                    x.getSpec().getTemplate().getSpec().getContainers().stream()
                        .anyMatch(c -> c.getName().equals("worker")))
            .toList();
    if (d.size() != 1) {
      throw new AssertionError("expected one worker Deployment, got " + d.size());
    }
    return d.get(0);
  }

  static List<EnvVar> workerEnv(List<HasMetadata> objects) {
    return worker(objects).getSpec().getTemplate().getSpec().getContainers().stream()
        .filter(c -> c.getName().equals("worker"))
        .findFirst()
        .orElseThrow()
        .getEnv();
  }

  static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
