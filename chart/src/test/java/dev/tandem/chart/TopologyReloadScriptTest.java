package dev.tandem.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart's topology-reload sidecar script, run for real with {@code sh} and a stub {@code
 * scontrol}: no reconfigure for the file slurmctld started with, one per change, and a failed
 * reconfigure retried until it succeeds. Bounded by {@code RELOAD_PASSES}.
 */
class TopologyReloadScriptTest {
  private static final Path SCRIPT = Path.of("../helm/tandem/files/topology-reload.sh");

  @Test
  void reconfiguresOncePerChangeAndRetriesAFailure(@TempDir Path dir) throws Exception {
    Path topology = dir.resolve("topology.conf");
    Files.writeString(topology, "SwitchName=s0 Nodes=a\n");
    Path calls = dir.resolve("calls");
    Path failFirst = dir.resolve("fail-first");
    Files.writeString(failFirst, "");
    Path bin = Files.createDirectory(dir.resolve("bin"));
    Path scontrol = bin.resolve("scontrol");
    // Records each call; fails the first one while the fail-first marker exists.
    Files.writeString(
        scontrol,
        "#!/bin/sh\necho \"$*\" >> "
            + calls
            + "\nif [ -e "
            + failFirst
            + " ]; then rm -f "
            + failFirst
            + "; exit 1; fi\nexit 0\n");
    Files.setPosixFilePermissions(scontrol, PosixFilePermissions.fromString("rwxr-xr-x"));

    ProcessBuilder pb = new ProcessBuilder("sh", SCRIPT.toString()).redirectErrorStream(true);
    pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
    pb.environment().put("TOPOLOGY_FILE", topology.toString());
    pb.environment().put("RELOAD_INTERVAL", "0.1");
    pb.environment().put("RELOAD_PASSES", "40");
    pb.redirectOutput(dir.resolve("out").toFile());
    Process p = pb.start();
    Thread.sleep(1_000); // ~10 passes on the unchanged file: no call
    assertTrue(!Files.exists(calls), "no reconfigure for the version slurmctld started with");
    Files.writeString(topology, "SwitchName=s0 Nodes=a,b\n");
    assertTrue(p.waitFor(30, TimeUnit.SECONDS), "the script ends after RELOAD_PASSES");
    // First call failed (marker), the next pass retried and succeeded, then no more calls.
    assertEquals(
        java.util.List.of("reconfigure", "reconfigure"),
        Files.readAllLines(calls),
        Files.readString(dir.resolve("out")));
    assertTrue(Files.readString(dir.resolve("out")).contains("slurmctld reconfigured"));
  }
}
