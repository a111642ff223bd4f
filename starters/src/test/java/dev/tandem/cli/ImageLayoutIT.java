package dev.tandem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The image's layout without a Docker engine: runs {@code scripts/image-layout.sh --no-build} (the
 * script the Dockerfile runs, after this module's package phase filled {@code target/lib}) into a
 * temp dir, then the laid-out {@code bin/tandem} with plain {@code java}, as the image's entrypoint
 * does. The result has the operator commands, no dev commands, no dev-stack jar and no class of a
 * dev-only package in Tandem's jars.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ImageLayoutIT {
  private static final long LIMIT_S = 120;

  private Path dest;

  @BeforeAll
  void layOut(@TempDir Path dir) throws Exception {
    dest = dir;
    Path script = Path.of("..", "scripts", "image-layout.sh").toAbsolutePath().normalize();
    Run r = run(List.of("bash", script.toString(), "--no-build", dest.toString()));
    assertEquals(0, r.code(), r.toString());
  }

  @Test
  void libHoldsTheStartersAndNoDevStackJar() throws IOException {
    List<String> jars;
    try (Stream<Path> s = Files.list(dest.resolve("lib"))) {
      jars = s.map(p -> p.getFileName().toString()).sorted().toList();
    }
    assertTrue(jars.stream().anyMatch(j -> j.startsWith("tandem-starters-")), jars.toString());
    assertTrue(jars.stream().anyMatch(j -> j.startsWith("tandem-workers-")), jars.toString());
    assertTrue(jars.stream().anyMatch(j -> j.startsWith("picocli-")), jars.toString());
    for (String forbidden : ProductionClasspathTest.FORBIDDEN) {
      String artifact = forbidden.substring(forbidden.indexOf(':') + 1);
      assertFalse(jars.stream().anyMatch(j -> j.startsWith(artifact + "-")), forbidden);
    }
  }

  @Test
  void tandemJarsHoldNoDevOnlyClass() throws IOException {
    List<Path> jars;
    try (Stream<Path> s = Files.list(dest.resolve("lib"))) {
      jars = s.filter(p -> p.getFileName().toString().startsWith("tandem-")).sorted().toList();
    }
    // workflows, activities, watchers, workers and the starters' own jar.
    assertEquals(5, jars.size(), jars.toString());
    for (Path jar : jars) {
      assertEquals(List.of(), ProductionClasspathTest.devOnlyEntries(jar), jar.toString());
    }
  }

  @Test
  void theLaidOutTandemRunsTheOperatorCommands() throws Exception {
    Run help = tandem("--help");
    assertEquals(0, help.code(), help.toString());
    for (String command : List.of("drain", "undrain", "status", "history", "pods", "worker")) {
      assertTrue(help.out().matches("(?s).*\\n\\s+" + command + "\\s.*"), command + ": " + help);
    }
    assertFalse(help.out().matches("(?s).*\\n\\s+(dev|bench)\\s.*"), help.toString());

    Run worker = tandem("worker", "--help");
    assertEquals(0, worker.code(), worker.toString());
    assertTrue(worker.out().contains("Run the Tandem worker"), worker.toString());
  }

  @Test
  void theWorkerStartsFromTheLayoutAndChecksItsConfiguration() throws Exception {
    // Past --help: the worker's own classes load from lib/ and read the (empty) environment.
    Run worker = tandem(Map.of(), "worker");
    assertEquals(2, worker.code(), worker.toString());
    assertTrue(worker.err().contains("configuration error: SLURM_REST_URL"), worker.toString());
  }

  @Test
  void theDevCommandsAreAbsent() throws Exception {
    for (String command : List.of("dev", "bench")) {
      // `help <command>`, not the command itself: were it present, it would start a dev stack.
      Run r = tandem("help", command);
      assertEquals(2, r.code(), r.toString());
      assertTrue(r.err().contains("Unknown subcommand '" + command + "'"), r.toString());
    }
  }

  private Run tandem(String... args) throws Exception {
    return tandem(null, args);
  }

  /** Runs the laid-out tandem; with {@code only}, in that environment (plus PATH and JAVA_HOME). */
  private Run tandem(Map<String, String> only, String... args) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(dest.resolve("bin").resolve("tandem").toString());
    cmd.addAll(List.of(args));
    return run(cmd, only);
  }

  private static Run run(List<String> cmd) throws Exception {
    return run(cmd, null);
  }

  /** Runs {@code cmd} with this JVM's java first on PATH; bounded by {@link #LIMIT_S}. */
  private static Run run(List<String> cmd, Map<String, String> only) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(cmd);
    Path javaHome = Path.of(System.getProperty("java.home"));
    Map<String, String> env = pb.environment();
    String path = env.getOrDefault("PATH", "/usr/bin:/bin");
    if (only != null) {
      env.clear();
      env.putAll(only);
    }
    env.put("JAVA_HOME", javaHome.toString());
    env.put("PATH", javaHome.resolve("bin") + ":" + path);
    env.remove("TANDEM_JAVA_OPTS");
    Path out = Files.createTempFile("image-layout", ".out");
    Path err = Files.createTempFile("image-layout", ".err");
    pb.redirectOutput(out.toFile()).redirectError(err.toFile());
    Process p = pb.start();
    try {
      if (!p.waitFor(LIMIT_S, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        throw new AssertionError(cmd + " did not finish within " + LIMIT_S + " s");
      }
      return new Run(
          p.exitValue(),
          Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  record Run(int code, String out, String err) {}
}
