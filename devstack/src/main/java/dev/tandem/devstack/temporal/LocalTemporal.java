package dev.tandem.devstack.temporal;

import dev.tandem.devstack.LocalScript;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * The real Temporal server of {@code tandem dev} and of every whole-stack test: the Temporal CLI's
 * development server (server, SQLite persistence and Web UI in one process), started and stopped by
 * {@code scripts/temporal-local.sh} on 127.0.0.1 with its database in a state directory of its own,
 * so {@link #stop()} then {@link #start()} brings back every workflow (docs/temporal-local.md).
 */
public final class LocalTemporal implements AutoCloseable {
  private static final Duration INSTALL_TIMEOUT = Duration.ofMinutes(20);
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

  private final LocalScript script;
  private final int port;
  private final int uiPort;
  private Path temporaryDir;

  private LocalTemporal(Map<String, String> env, int port, int uiPort) {
    this.script = LocalScript.of("temporal-local.sh", env);
    this.port = port;
    this.uiPort = uiPort;
  }

  /**
   * Installs the binary if needed and starts a server with its state in {@code dir}.
   *
   * @param port the frontend port on 127.0.0.1 (0: a free one)
   * @param uiPort the Web UI's port (0: a free one), or -1 for no UI
   */
  public static LocalTemporal start(Path dir, int port, int uiPort) throws IOException {
    int p = port == 0 ? freePort() : port;
    int ui = uiPort == 0 ? freePort() : uiPort;
    Map<String, String> env = new HashMap<>(System.getenv());
    env.put("TANDEM_TEMPORAL_DIR", dir.toAbsolutePath().toString());
    env.put("TANDEM_TEMPORAL_PORT", Integer.toString(p));
    env.put("TANDEM_TEMPORAL_UI_PORT", Integer.toString(Math.max(ui, 0)));
    LocalTemporal t = new LocalTemporal(env, p, ui);
    t.script.run(INSTALL_TIMEOUT, "install");
    t.start();
    return t;
  }

  /**
   * A server without UI on free ports, its state in a new temporary directory removed at {@link
   * #close()}: for tests that need a Temporal of their own.
   */
  public static LocalTemporal startTemporary() throws IOException {
    Path dir = Files.createTempDirectory("tandem-temporal-");
    LocalTemporal t = start(dir, 0, -1);
    t.temporaryDir = dir;
    return t;
  }

  /** Whether a {@code temporal} binary is at hand (given, on PATH or cached): no build needed. */
  public static boolean installed() {
    return LocalScript.of("temporal-local.sh", System.getenv())
        .succeeds(Duration.ofSeconds(30), "installed");
  }

  /** Stops a server an earlier run left running from {@code dir}, if any. */
  public static void stopLeftover(Path dir) throws IOException {
    Map<String, String> env = new HashMap<>(System.getenv());
    env.put("TANDEM_TEMPORAL_DIR", dir.toAbsolutePath().toString());
    new LocalTemporal(env, 0, -1).stop();
  }

  /** Starts the server again on the same database and ports (after {@link #stop} or a kill). */
  public void start() throws IOException {
    script.run(START_TIMEOUT, "start");
  }

  /** Stops the server (SIGTERM, SIGKILL after 10 s); its workflows stay in the database. */
  public void stop() throws IOException {
    script.run(Duration.ofSeconds(30), "stop");
  }

  /** Kills the server with SIGKILL, as a crash would. */
  public void kill() throws IOException {
    script.run(Duration.ofSeconds(30), "kill");
  }

  /** The {@code temporal} binary this server runs, for tests that use Temporal's own CLI. */
  public Path binary() throws IOException {
    String out = script.run(INSTALL_TIMEOUT, "path").trim();
    return Path.of(out.substring(out.lastIndexOf('\n') + 1).trim());
  }

  public int port() {
    return port;
  }

  /** {@code 127.0.0.1:<port>}, the value for {@code TEMPORAL_ADDRESS} and {@code --address}. */
  public String address() {
    return "127.0.0.1:" + port;
  }

  /** The Web UI's address ({@code http://127.0.0.1:<port>}), or null when it runs without. */
  public String uiAddress() {
    return uiPort < 0 ? null : "http://127.0.0.1:" + uiPort;
  }

  @Override
  public void close() {
    try {
      stop();
      if (temporaryDir != null) {
        LocalScript.deleteTree(temporaryDir);
      }
    } catch (IOException e) {
      System.err.println("LocalTemporal: " + e.getMessage());
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
