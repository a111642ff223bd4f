package dev.tandem.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tandem.slurm.local.LocalSlurmScript;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 47 item 6, the Temporal Web UI in a real browser: on the whole local stack (real Temporal
 * server and its UI 2.42, NodeSet {@code e2e} of two ready nodes), {@code ui-tests/temporal-ui.mjs}
 * drives Debian's headless Chromium with playwright-core and checks what an operator sees: the
 * workflows list filtered by {@code TandemNodeSet="default/e2e"} lists the NodeSet's and exactly
 * its two nodes' workflows; a node's page shows its summary, its current details and its {@code
 * TandemPhase}. Screenshots go to {@code target/ui-screenshots}. A wrong filter value must make the
 * script fail, so a pass is not vacuous.
 *
 * <p>Needs {@code node}, {@code /usr/bin/chromium} and {@code ui-tests/node_modules} ({@code
 * .ci/run} installs them); without them the test fails and says how to install them.
 */
class TemporalUiE2EIT {
  private static final Duration RUN_LIMIT = Duration.ofSeconds(150);
  private static final String NODE_SET = "default/e2e";
  private static final String NODE = "node/default/e2e-0";
  private static final Path SHOTS = Path.of("target", "ui-screenshots").toAbsolutePath();

  private static Path uiTests;
  @AutoClose private static E2EStack e2e;

  @BeforeAll
  static void start() throws Exception {
    uiTests = requireBrowserTools(); // before the stack: a missing tool fails in a second
    e2e = E2EStack.startWithNodeSet("e2e", 2);
  }

  @Test
  void anOperatorFindsANodeByItsNodeSetAndSeesItsPhaseSummaryAndDetails() throws Exception {
    String ui = e2e.stack.temporal().uiAddress();
    assertTrue(ui != null && ui.startsWith("http://"), "the stack's Temporal serves its UI: " + ui);

    Run ok =
        script(
            ui,
            NODE_SET,
            NODE,
            SHOTS,
            "--phase",
            "ready",
            "--nodes",
            "node/default/e2e-0,node/default/e2e-1",
            "--timeout",
            "120");
    assertEquals(0, ok.exitCode, "temporal-ui.mjs failed:\n" + ok.output);
    for (String png : List.of("1-list.png", "2-workflow.png", "3-search-attributes.png")) {
      Path f = SHOTS.resolve(png);
      assertTrue(Files.size(f) > 1000, f + " is a screenshot");
    }

    // The same checks with a NodeSet nobody has: the list is empty and the script says so.
    Path wrongShots = SHOTS.resolve("wrong-filter");
    Run wrong = script(ui, "default/e2e-nope", NODE, wrongShots, "--timeout", "15");
    assertEquals(1, wrong.exitCode, "a wrong filter must fail:\n" + wrong.output);
    assertTrue(
        wrong.output.contains(
            "FAIL: workflows nodeset/default/e2e-nope, node/default/e2e-0 listed"),
        wrong.output);
  }

  private record Run(int exitCode, String output) {}

  /** {@code node ui-tests/temporal-ui.mjs ...}, bounded by {@link #RUN_LIMIT}. */
  private static Run script(String ui, String nodeSet, String node, Path shots, String... options)
      throws IOException, InterruptedException {
    Files.createDirectories(shots);
    List<String> cmd =
        new ArrayList<>(
            List.of(
                "node",
                uiTests.resolve("temporal-ui.mjs").toString(),
                ui,
                nodeSet,
                node,
                shots.toString()));
    cmd.addAll(List.of(options));
    Path log = shots.resolve("temporal-ui.log");
    Process p =
        new ProcessBuilder(cmd)
            .directory(uiTests.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    if (!p.waitFor(RUN_LIMIT.toSeconds(), TimeUnit.SECONDS)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
      fail(
          "temporal-ui.mjs did not end within "
              + RUN_LIMIT.toSeconds()
              + " s:\n"
              + Files.readString(log, StandardCharsets.UTF_8));
    }
    String out = Files.readString(log, StandardCharsets.UTF_8);
    System.out.println(out);
    return new Run(p.exitValue(), out);
  }

  /**
   * The ui-tests directory, once node, Chromium and the pinned playwright-core are there; fails
   * saying how to install what is missing (.ci/run does).
   */
  private static Path requireBrowserTools() throws IOException, InterruptedException {
    Path root = LocalSlurmScript.find(System.getenv()).getParent().getParent();
    Path dir = root.resolve("ui-tests");
    List<String> missing = new ArrayList<>();
    if (!nodeRuns()) {
      missing.add(
          "Node.js 20 or newer with npm on PATH (`node`; Debian 12's nodejs package, 18, is too old)");
    }
    String chromium = System.getenv().getOrDefault("CHROMIUM", "/usr/bin/chromium");
    if (!Files.isExecutable(Path.of(chromium))) {
      missing.add(
          "Chromium at "
              + chromium
              + " (apt-get install -y --no-install-recommends chromium, or set CHROMIUM)");
    }
    String pinned =
        new ObjectMapper()
            .readTree(dir.resolve("package-lock.json").toFile())
            .path("packages")
            .path("node_modules/playwright-core")
            .path("version")
            .asText();
    Path installed = dir.resolve("node_modules/playwright-core/package.json");
    String have =
        Files.isRegularFile(installed)
            ? new ObjectMapper().readTree(installed.toFile()).path("version").asText()
            : null;
    if (!pinned.equals(have)) {
      missing.add(
          "playwright-core "
              + pinned
              + " in ui-tests/node_modules (found "
              + (have == null ? "none" : have)
              + "): npm ci --prefix ui-tests");
    }
    if (!missing.isEmpty()) {
      fail(
          "TemporalUiE2EIT needs a browser and its driver (.ci/run installs them); missing:\n  "
              + String.join("\n  ", missing));
    }
    return dir;
  }

  /** Whether {@code node --version} says v20 or newer (playwright-core's engines). */
  private static boolean nodeRuns() throws InterruptedException {
    try {
      Process p = new ProcessBuilder("node", "--version").redirectErrorStream(true).start();
      if (!p.waitFor(20, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return false;
      }
      String v = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      java.util.regex.Matcher m = java.util.regex.Pattern.compile("^v(\\d+)\\.").matcher(v);
      return p.exitValue() == 0 && m.find() && Integer.parseInt(m.group(1)) >= 20;
    } catch (IOException e) {
      return false;
    }
  }
}
