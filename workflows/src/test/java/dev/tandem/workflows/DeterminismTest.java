package dev.tandem.workflows;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Workflow code is replayed; it must not read clocks, sleep, start threads, draw random numbers or
 * reach the network. The build keeps fabric8 and HTTP clients off the classpath; this keeps the
 * JDK's own equivalents out of the source.
 */
class DeterminismTest {
  private static final Pattern FORBIDDEN =
      Pattern.compile(
          "java\\.net\\.|HttpClient|Thread\\.sleep|new Thread\\(|System\\.currentTimeMillis|"
              + "System\\.nanoTime|Instant\\.now|LocalDateTime\\.now|Clock\\.system|new Random\\(|"
              + "Math\\.random|UUID\\.randomUUID|ExecutorService|CompletableFuture|"
              + "synchronized|io\\.fabric8");

  @Test
  void workflowSourcesUseNoNonDeterministicApis() throws IOException {
    List<String> hits = new ArrayList<>();
    try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        List<String> lines = Files.readAllLines(f);
        for (int i = 0; i < lines.size(); i++) {
          if (FORBIDDEN.matcher(lines.get(i)).find()) {
            hits.add(f + ":" + (i + 1) + ": " + lines.get(i).trim());
          }
        }
      }
    }
    assertEquals(List.of(), hits);
  }
}
