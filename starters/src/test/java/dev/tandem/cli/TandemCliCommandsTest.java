package dev.tandem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Without the devtools module on the class path (as in the image), {@code tandem} has the operator
 * commands only: {@code dev} and {@code bench} come from a {@link CliExtension}.
 */
class TandemCliCommandsTest {
  @Test
  void theProductionCliHasTheOperatorCommandsOnly() {
    assertEquals(List.of(), CliExtension.installed());
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
            "help"),
        List.copyOf(TandemCli.commandLine().getSubcommands().keySet()));
  }

  @Test
  void devIsAnUnknownCommandAndHelpDoesNotOfferIt() {
    CliRun dev = CliRun.of("dev");
    assertEquals(2, dev.code(), dev.toString());
    assertTrue(dev.firstErrorLine().contains("Unmatched argument"), dev.toString());
    // `help dev` is the safe probe (when dev exists it prints help instead of starting a stack).
    CliRun helpDev = CliRun.of("help", "dev");
    assertEquals(2, helpDev.code(), helpDev.toString());
    assertTrue(helpDev.err().contains("Unknown subcommand 'dev'"), helpDev.toString());

    CliRun help = CliRun.of("--help");
    assertEquals(0, help.code(), help.toString());
    assertTrue(help.out().contains("worker"), help.out());
    assertFalse(help.out().matches("(?s).*\\n\\s+(dev|bench)\\s.*"), help.out());
  }
}
