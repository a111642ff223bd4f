package dev.tandem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Dockerfile's contract without a Docker engine (ImageLayoutIT runs what it runs): the last
 * stage is a JRE 17 that runs {@code tandem worker} as a non-root user from what {@code
 * scripts/image-layout.sh} laid out. The chart relies on the entrypoint and the user.
 */
class DockerfileTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  /** The Dockerfile's instructions, continuation lines joined, comments dropped. */
  static List<String> instructions() throws IOException {
    List<String> out = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String line : Files.readAllLines(ROOT.resolve("Dockerfile"))) {
      String t = line.strip();
      if (t.startsWith("#") || t.isEmpty()) {
        continue;
      }
      if (t.endsWith("\\")) {
        current.append(t, 0, t.length() - 1).append(' ');
        continue;
      }
      out.add(current.append(t).toString());
      current.setLength(0);
    }
    return out;
  }

  /** The instructions after the last FROM, the FROM included. */
  static List<String> finalStage(List<String> all) {
    int from = 0;
    for (int i = 0; i < all.size(); i++) {
      if (all.get(i).startsWith("FROM ")) {
        from = i;
      }
    }
    return all.subList(from, all.size());
  }

  @Test
  void buildsWithTheLayoutScriptAndRunsTandemWorkerOnAJre17AsNonRoot() throws IOException {
    List<String> all = instructions();
    assertTrue(
        all.stream().anyMatch(i -> i.startsWith("RUN ") && i.contains("scripts/image-layout.sh")),
        all.toString());

    List<String> run = finalStage(all);
    assertEquals("FROM eclipse-temurin:17-jre", run.get(0), run.toString());
    assertTrue(run.contains("COPY --from=build /opt/tandem /opt/tandem"), run.toString());
    assertTrue(run.contains("ENTRYPOINT [\"tandem\"]"), run.toString());
    assertTrue(run.contains("CMD [\"worker\"]"), run.toString());

    List<String> users = run.stream().filter(i -> i.startsWith("USER ")).toList();
    assertEquals(1, users.size(), run.toString());
    String uid = users.get(0).substring("USER ".length()).split(":")[0];
    assertTrue(uid.matches("\\d+"), "numeric uid for runAsNonRoot: " + uid);
    assertNotEquals(0, Integer.parseInt(uid));
  }

  @Test
  void theBuildContextLeavesOutBuildOutputAndGit() throws IOException {
    List<String> ignored = Files.readAllLines(ROOT.resolve(".dockerignore"));
    assertTrue(ignored.contains("**/target"), ignored.toString());
    assertTrue(ignored.contains(".git"), ignored.toString());
  }
}
