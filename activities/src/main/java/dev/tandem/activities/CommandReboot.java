package dev.tandem.activities;

import dev.tandem.workflows.Names;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reboot by a configured executable, run as {@code <path> <node> <token> <reason>} (e.g. a script
 * calling the provider's API or IPMI). A request starts it in the background (an activity call may
 * last 30 s, a reboot minutes); when it exits 0 the action sets {@code tandem.dev/rebooted=<token>}
 * on the Node, which is what {@link #done} reads: the record survives a worker restart. A command
 * still running when the worker dies is not started again (a second reboot of a node is worse than
 * a step that times out); the ladder's step timeout then moves on. A non-zero exit is logged and
 * the request can be made again.
 */
final class CommandReboot implements RebootAction {
  private static final Logger log = LoggerFactory.getLogger(CommandReboot.class);

  /** A command that runs longer than this is killed and counts as failed. */
  static final Duration MAX_RUN = Duration.ofMinutes(30);

  private final Path command;
  private final NodeWrites nodes;
  private final Map<String, Process> running = new ConcurrentHashMap<>();

  CommandReboot(Path command, NodeWrites nodes) {
    this.command = command;
    this.nodes = nodes;
  }

  @Override
  public void request(String node, String token, String reason) {
    if (done(node, token)) {
      return;
    }
    String key = node + "\n" + token;
    running.compute(
        key,
        (k, p) -> {
          if (p != null && p.isAlive()) {
            return p;
          }
          return start(node, token, reason);
        });
  }

  private Process start(String node, String token, String reason) {
    try {
      Process p =
          new ProcessBuilder(command.toString(), node, token, reason == null ? "" : reason)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      log.info("reboot of node {} (token {}): started {} pid {}", node, token, command, p.pid());
      Thread t = new Thread(() -> await(p, node, token), "reboot-" + node);
      t.setDaemon(true);
      t.start();
      return p;
    } catch (java.io.IOException e) {
      throw KubeCalls.rejected("cannot run the reboot command " + command + ": " + e.getMessage());
    }
  }

  private void await(Process p, String node, String token) {
    try {
      if (!p.waitFor(MAX_RUN.toSeconds(), TimeUnit.SECONDS)) {
        p.destroyForcibly();
        log.warn("reboot command for node {} ran longer than {}; killed it", node, MAX_RUN);
        return;
      }
      if (p.exitValue() != 0) {
        log.warn("reboot command for node {} exited {}", node, p.exitValue());
        return;
      }
      // Retried here, not by Temporal: nobody else would record the success.
      for (int attempt = 1; attempt <= 10; attempt++) {
        try {
          nodes.annotate(node, Map.of(Names.ANNOTATION_REBOOTED, token));
          log.info("reboot command for node {} (token {}) succeeded", node, token);
          return;
        } catch (RuntimeException e) {
          log.warn(
              "cannot record the reboot of node {} (attempt {}): {}", node, attempt, e.toString());
          Thread.sleep(1000L * attempt);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public boolean done(String node, String token) {
    return AnnotationReboot.rebooted(nodes.get(node), token);
  }

  @Override
  public String describe() {
    return "command:" + command;
  }
}
