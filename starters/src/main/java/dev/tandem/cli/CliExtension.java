package dev.tandem.cli;

import java.util.List;
import java.util.ServiceLoader;

/**
 * Subcommands a module adds to {@code tandem} when it is on the class path, found with {@link
 * ServiceLoader} (a {@code META-INF/services/dev.tandem.cli.CliExtension} entry). The production
 * CLI has none; the devtools module adds {@code dev} and {@code bench}, which need the dev stack
 * (the local control plane and kubelet, the local stack) that an operator's image must not carry.
 */
public interface CliExtension {
  /** Picocli command objects (classes annotated with {@code @Command}), in help order. */
  List<Object> commands();

  /**
   * Sets up logging for {@code args} before anything logs, when the command is this extension's and
   * it wants other than the default; returns whether it did (see {@link
   * TandemCli#configureLogging}).
   */
  default boolean configureLogging(String[] args) {
    return false;
  }

  /** The extensions on the class path of the CLI. */
  static List<CliExtension> installed() {
    return ServiceLoader.load(CliExtension.class, CliExtension.class.getClassLoader()).stream()
        .map(ServiceLoader.Provider::get)
        .toList();
  }
}
