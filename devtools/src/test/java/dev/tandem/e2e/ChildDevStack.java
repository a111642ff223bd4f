package dev.tandem.e2e;

import dev.tandem.cli.TandemCli;
import dev.tandem.devstack.kube.LocalKubernetes;
import dev.tandem.slurm.SlurmEnvFile;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A real {@code tandem dev} in a child JVM (the tests' classpath) on the tests' Slurm, with the
 * NodeSet {@code manifest}, its state in {@code dir/state}, its console in {@code out}: what the
 * stop and crash-recovery tests start, stop and kill as a user would.
 */
final class ChildDevStack {
  private static final Set<Integer> HANDED_OUT = new HashSet<>();

  private ChildDevStack() {}

  static Process start(Path dir, Path manifest, int temporalPort, Path out) throws IOException {
    List<String> cmd =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx512m",
            "-cp",
            System.getProperty("java.class.path"),
            TandemCli.class.getName(),
            "dev",
            "--state-dir",
            dir.resolve("state").toString(),
            "--temporal-port",
            Integer.toString(temporalPort),
            "--api-port",
            Integer.toString(LocalKubernetes.freePorts()), // the plane takes it and the next four
            "--metrics-port",
            Integer.toString(freePort()),
            "--manifest",
            manifest.toString(),
            "--ready-timeout",
            "3m");
    ProcessBuilder pb =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(out.toFile())
            .redirectInput(ProcessBuilder.Redirect.PIPE);
    // The tests' Slurm, not a dev Slurm of its own under the temp dir: an explicit
    // TANDEM_SLURM_DIR wins over tandem dev's default, as it does for a user.
    Path slurmDir = SlurmEnvFile.defaultPath(System.getenv()).getParent();
    pb.environment().put("TANDEM_SLURM_DIR", slurmDir.toString());
    return pb.start();
  }

  /** A free port not handed out before: the kernel may give the same free port twice in a row. */
  static synchronized int freePort() throws IOException {
    for (int i = 0; i < 50; i++) {
      try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        if (HANDED_OUT.add(s.getLocalPort())) {
          return s.getLocalPort();
        }
      }
    }
    throw new IOException("no distinct free port in 50 tries");
  }
}
