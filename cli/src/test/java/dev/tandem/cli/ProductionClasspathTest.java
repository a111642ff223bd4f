package dev.tandem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The production CLI (what the image runs) carries no dev stack: none of the artifacts below is on
 * its runtime class path. Read from {@code target/runtime-dependencies.txt}, which this module's
 * pom writes with {@code dependency:list -DincludeScope=runtime} before the tests run; test-scoped
 * dependencies (the tests use the dev stack) are not in it.
 */
class ProductionClasspathTest {
  /** groupId:artifactId of the dev stack and the test servers it is built on. */
  static final Set<String> FORBIDDEN =
      Set.of(
          "dev.tandem:tandem-devstack",
          "io.fabric8:kubernetes-server-mock",
          "io.fabric8:mockwebserver",
          "com.squareup.okhttp3:mockwebserver",
          "io.temporal:temporal-test-server",
          "io.temporal:temporal-testing");

  private static final Pattern COORDINATES =
      Pattern.compile("^\\s+([\\w.-]+):([\\w.-]+):[\\w.-]+:.*:(compile|runtime)\\b.*$");

  static Set<String> runtimeArtifacts() throws IOException {
    Path list = Path.of("target", "runtime-dependencies.txt");
    assertTrue(Files.isRegularFile(list), list.toAbsolutePath() + " missing: build with Maven");
    List<String> lines = Files.readAllLines(list);
    return lines.stream()
        .map(COORDINATES::matcher)
        .filter(Matcher::matches)
        .map(m -> m.group(1) + ":" + m.group(2))
        .collect(Collectors.toSet());
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
}
