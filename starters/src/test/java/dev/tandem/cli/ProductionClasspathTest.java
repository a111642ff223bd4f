package dev.tandem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The production CLI (what the image runs) carries no dev stack: none of the artifacts below is on
 * its runtime class path, and no Tandem class on it is in a dev-only package. Read from {@code
 * target/runtime-dependencies.txt}, which this module's pom writes with {@code dependency:list
 * -DincludeScope=runtime} (with each artifact's file) before the tests run; test-scoped
 * dependencies (the tests use the dev stack) are not in it.
 */
class ProductionClasspathTest {
  /** groupId:artifactId of the dev stack, the dev tools and the test servers they are built on. */
  static final Set<String> FORBIDDEN =
      Set.of(
          "dev.tandem:tandem-devstack",
          "dev.tandem:tandem-devtools",
          "io.fabric8:kubernetes-server-mock",
          "io.fabric8:mockwebserver",
          "com.squareup.okhttp3:mockwebserver",
          "io.temporal:temporal-test-server",
          "io.temporal:temporal-testing");

  /**
   * Packages (as class file paths) that only the local stack, the benchmarks and the tests use: the
   * Slurm benches and the local Slurm script's driver, tandem bench and tandem dev, the local
   * control plane, kubelet and Temporal, the fake slurmrestd, the dev tools' commands, the
   * end-to-end tests.
   */
  static final List<String> DEV_ONLY_PACKAGES =
      List.of(
          "dev/tandem/slurm/bench/",
          "dev/tandem/slurm/local/",
          "dev/tandem/slurm/fake/",
          "dev/tandem/bench/",
          "dev/tandem/dev/",
          "dev/tandem/devstack/",
          "dev/tandem/devtools/",
          "dev/tandem/e2e/");

  private static final Pattern DEPENDENCY =
      Pattern.compile(
          "^\\s+([\\w.-]+):([\\w.-]+):[\\w.-]+:.*:(compile|runtime):(.+?)(?: -- module .*)?$");

  /** groupId:artifactId of each runtime dependency, to its file (jar or classes directory). */
  static Map<String, Path> runtimeDependencies() throws IOException {
    Path list = Path.of("target", "runtime-dependencies.txt");
    assertTrue(Files.isRegularFile(list), list.toAbsolutePath() + " missing: build with Maven");
    Map<String, Path> out = new LinkedHashMap<>();
    for (String line : Files.readAllLines(list)) {
      Matcher m = DEPENDENCY.matcher(line);
      if (m.matches()) {
        out.put(m.group(1) + ":" + m.group(2), Path.of(m.group(4).strip()));
      }
    }
    return out;
  }

  static Set<String> runtimeArtifacts() throws IOException {
    return runtimeDependencies().keySet();
  }

  /** The entries of a jar or a classes directory that lie in a dev-only package. */
  static List<String> devOnlyEntries(Path jarOrDir) {
    List<String> names = new ArrayList<>();
    try {
      if (Files.isDirectory(jarOrDir)) {
        try (Stream<Path> s = Files.walk(jarOrDir)) {
          s.filter(Files::isRegularFile)
              .map(p -> jarOrDir.relativize(p).toString().replace('\\', '/'))
              .forEach(names::add);
        }
      } else {
        try (ZipFile zip = new ZipFile(jarOrDir.toFile())) {
          zip.stream().map(e -> e.getName()).forEach(names::add);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(jarOrDir.toString(), e);
    }
    return names.stream().filter(n -> DEV_ONLY_PACKAGES.stream().anyMatch(n::startsWith)).toList();
  }

  @Test
  void theRuntimeClassPathHasNoDevStack() throws IOException {
    Set<String> runtime = runtimeArtifacts();
    // The list is the real one, not an empty or unparsed file: the worker and picocli are in it.
    assertTrue(runtime.contains("dev.tandem:tandem-workers"), runtime.toString());
    assertTrue(runtime.contains("info.picocli:picocli"), runtime.toString());
    assertTrue(runtime.contains("io.temporal:temporal-sdk"), runtime.toString());
    assertEquals(
        Set.of(),
        runtime.stream().filter(FORBIDDEN::contains).collect(Collectors.toSet()),
        "dev stack on the production CLI's runtime class path");
  }

  @Test
  void noTandemClassOnTheRuntimeClassPathIsDevOnly() throws IOException {
    Map<String, Path> tandem = new LinkedHashMap<>(runtimeDependencies());
    tandem.keySet().removeIf(a -> !a.startsWith("dev.tandem:"));
    tandem.put("this module", Path.of("target", "classes"));
    // Every production module is looked into: workflows, activities, watchers, workers and this.
    assertEquals(5, tandem.size(), tandem.toString());
    Set<String> found = new TreeSet<>();
    tandem.forEach(
        (artifact, file) -> {
          assertTrue(Files.exists(file), artifact + ": " + file + " missing");
          devOnlyEntries(file).forEach(e -> found.add(artifact + ": " + e));
        });
    assertEquals(Set.of(), found, "dev-only classes in the production jars");
  }

  @Test
  void theDevOnlyCheckSeesAClassInADevOnlyPackage(@TempDir Path dir) throws IOException {
    // The check above is not vacuous: a class file in such a package is reported, one beside it
    // not.
    Path cls = dir.resolve("dev/tandem/slurm/bench/SlurmClientBench.class");
    Files.createDirectories(cls.getParent());
    Files.write(cls, new byte[] {0});
    Files.write(
        Files.createDirectories(dir.resolve("dev/tandem/slurm")).resolve("A.class"),
        new byte[] {0});
    assertEquals(List.of("dev/tandem/slurm/bench/SlurmClientBench.class"), devOnlyEntries(dir));
  }
}
