package dev.tandem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With the starters module on the class path (a source checkout's {@code ./tandem}), the production
 * CLI finds {@link DevCliExtension} and has {@code dev} and {@code bench} where they always were.
 */
class DevCliExtensionTest {
  private static final List<String> PROPERTIES =
      List.of("tandem.log.file", "tandem.log.console", "tandem.log.level");

  @AfterEach
  void clearLoggingProperties() {
    PROPERTIES.forEach(System::clearProperty);
  }

  @Test
  void devAndBenchJoinTheOperatorCommandsBeforeHelp() {
    assertEquals(
        List.of(
            "drain",
            "undrain",
            "status",
            "history",
            "remediate",
            "remediations",
            "pods",
            "topology",
            "worker",
            "dev",
            "bench",
            "help"),
        List.copyOf(TandemCli.commandLine().getSubcommands().keySet()));
  }

  @Test
  void helpDescribesTheDevCommands() {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = TandemCli.run(new PrintWriter(out), new PrintWriter(err), "help", "dev");
    assertEquals(0, code, err.toString());
    assertTrue(out.toString().contains("--state-dir"), out.toString());

    out = new StringWriter();
    code = TandemCli.run(new PrintWriter(out), new PrintWriter(err), "help", "bench");
    assertEquals(0, code, err.toString());
    assertTrue(out.toString().contains("Usage: tandem bench"), out.toString());
  }

  @Test
  void devLogsToItsStateDirOtherShortCommandsWarnOnly(@TempDir Path dir) {
    TandemCli.configureLogging(new String[] {"dev", "--state-dir", dir.toString()});
    assertEquals(dir.resolve("tandem.log").toString(), System.getProperty("tandem.log.file"));
    assertEquals("WARN", System.getProperty("tandem.log.console"));
    assertNull(System.getProperty("tandem.log.level"));

    clearLoggingProperties();
    TandemCli.configureLogging(new String[] {"bench", "slurm"});
    assertNull(System.getProperty("tandem.log.file"));
    if (System.getenv("TANDEM_LOG_LEVEL") == null) {
      assertEquals("WARN", System.getProperty("tandem.log.level"));
    }
  }
}
