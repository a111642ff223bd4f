package dev.tandem.devtools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.cli.TandemCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With the devtools module on the class path (a source checkout's {@code ./tandem}), the production
 * CLI finds {@link DevCliExtension} (through {@code META-INF/services}) and has {@code dev} and
 * {@code bench} after the operator commands.
 */
class DevCliExtensionTest {
  private static final List<String> PROPERTIES =
      List.of("tandem.log.file", "tandem.log.console", "tandem.log.level");

  /** A command's line in the help's command list: two spaces, its name, then its description. */
  private static final Pattern COMMAND_LINE = Pattern.compile("(?m)^  ([a-z]+)\\s");

  @AfterEach
  void clearLoggingProperties() {
    PROPERTIES.forEach(System::clearProperty);
  }

  @Test
  void devAndBenchJoinTheOperatorCommandsBeforeHelp() {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = TandemCli.run(new PrintWriter(out), new PrintWriter(err), "--help");
    assertEquals(0, code, err.toString());
    String help = out.toString();
    Matcher m = COMMAND_LINE.matcher(help.substring(help.indexOf("Commands:")));
    List<String> commands = m.results().map(r -> r.group(1)).toList();
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
        commands,
        help);
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
  void devLogsToItsStateDirOtherCommandsKeepTheDefault(@TempDir Path dir) {
    DevCliExtension extension = new DevCliExtension();
    assertTrue(extension.configureLogging(new String[] {"dev", "--state-dir", dir.toString()}));
    assertEquals(dir.resolve("tandem.log").toString(), System.getProperty("tandem.log.file"));
    assertEquals("WARN", System.getProperty("tandem.log.console"));
    assertNull(System.getProperty("tandem.log.level"));

    clearLoggingProperties();
    assertFalse(extension.configureLogging(new String[] {"bench", "slurm"}));
    assertNull(System.getProperty("tandem.log.file"));
  }
}
