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
    TemplateCommand t =
        new Helm(DIR)
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
