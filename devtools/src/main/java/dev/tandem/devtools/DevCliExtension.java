package dev.tandem.devtools;

import dev.tandem.cli.CliExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Adds {@code tandem dev} and {@code tandem bench} to the CLI (registered in {@code
 * META-INF/services}): they start the dev stack, so they live here, next to it, and not in the
 * production CLI module.
 */
public final class DevCliExtension implements CliExtension {
  @Override
  public List<Object> commands() {
    return List.of(new DevCommand(), new BenchCommand());
  }

  /**
   * {@code dev} logs to a file in its state dir and keeps the terminal for progress; when the dir
   * is unusable the command reports it and logging stays on the terminal.
   */
  @Override
  public boolean configureLogging(String[] args) {
    if (args.length == 0 || !args[0].equals("dev")) {
      return false;
    }
    String dir = DevCommand.DEFAULT_STATE_DIR;
    for (int i = 1; i < args.length; i++) {
      if (args[i].equals("--state-dir") && i + 1 < args.length) {
        dir = args[i + 1];
      } else if (args[i].startsWith("--state-dir=")) {
        dir = args[i].substring("--state-dir=".length());
      }
    }
    try {
      Files.createDirectories(Path.of(dir));
      System.setProperty("tandem.log.file", Path.of(dir, "tandem.log").toString());
      System.setProperty("tandem.log.console", "WARN");
    } catch (java.io.IOException | RuntimeException e) {
      // The command itself reports an unusable state dir; keep logging on the terminal.
    }
    return true;
  }
}
