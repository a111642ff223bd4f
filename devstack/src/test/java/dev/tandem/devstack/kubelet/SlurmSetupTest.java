package dev.tandem.devstack.kubelet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SlurmSetupTest {
  @Test
  void envFileSyntax() {
    Map<String, String> env =
        SlurmSetup.parseEnv(
            List.of(
                "# written by scripts/slurm-local.sh",
                "export SLURM_CONF=/x/slurm.conf",
                "SLURMD_BIN=\"/usr/sbin/slurmd\"",
                "TANDEM_SLURM_POOLS='spare:4,gpu-a:8'",
                "",
                "garbage line"));
    assertEquals("/x/slurm.conf", env.get("SLURM_CONF"));
    assertEquals("/usr/sbin/slurmd", env.get("SLURMD_BIN"));
    assertEquals("spare:4,gpu-a:8", env.get("TANDEM_SLURM_POOLS"));
    assertEquals(3, env.size());
  }

  @Test
  void nodeNamesFromSlurmConfAndReload(@TempDir Path dir) throws IOException {
    Path conf = dir.resolve("slurm.conf");
    Files.writeString(
        conf,
        String.join(
            "\n",
            "ClusterName=local",
            "SlurmdSpoolDir=" + dir + "/state/d/%n",
            "NodeName=DEFAULT CPUs=2",
            "NodeName=n[1-4] NodeHostname=h Port=[17001-17004] State=UNKNOWN",
            "nodename=gpu-a-[0-7] Port=[17101-17108] State=FUTURE # pool",
            "#NodeName=commented-[0-3]",
            "PartitionName=low Nodes=ALL Default=YES"));
    Path env = dir.resolve("slurm.env");
    Files.writeString(
        env, "SLURM_CONF=" + conf + "\nSLURMD_BIN=/usr/sbin/slurmd\nTANDEM_SLURM_POOLS=gpu-a:8\n");
    SlurmSetup setup = new SlurmSetup(env);
    SlurmSetup.Snapshot s = setup.get();
    assertNull(s.problem());
    assertEquals(12, s.nodeNames().size());
    assertTrue(s.declares("n3") && s.declares("gpu-a-7"));
    assertFalse(s.declares("gpu-a-8") || s.declares("commented-0") || s.declares("DEFAULT"));
    assertEquals(dir + "/state/d/%n", s.spoolDirPattern());
    assertEquals("/usr/sbin/slurmd", s.slurmdBin());

    Files.writeString(conf, Files.readString(conf) + "\nNodeName=gpu-b-[0-1] State=FUTURE\n");
    Files.setLastModifiedTime(conf, FileTime.fromMillis(System.currentTimeMillis() + 5000));
    assertTrue(setup.get().declares("gpu-b-1"), "a changed slurm.conf is read again");
  }

  @Test
  void missingOrBrokenFilesAreExplained(@TempDir Path dir) throws IOException {
    SlurmSetup.Snapshot none = new SlurmSetup(dir.resolve("slurm.env")).get();
    assertTrue(none.problem().contains("scripts/slurm-local.sh start"), none.problem());
    Path env = dir.resolve("slurm.env");
    Files.writeString(env, "SLURMD_BIN=/x\n");
    assertTrue(new SlurmSetup(env).get().problem().contains("does not set SLURM_CONF"));
    Files.writeString(env, "SLURM_CONF=" + dir.resolve("missing.conf") + "\n");
    assertTrue(new SlurmSetup(env).get().problem().contains("cannot read the node names"));
    assertEquals(Path.of("/var/tmp/tandem-slurm/slurm.env"), SlurmSetup.defaultEnvFile(Map.of()));
    assertEquals(
        Path.of("/d/slurm.env"), SlurmSetup.defaultEnvFile(Map.of("TANDEM_SLURM_DIR", "/d")));
  }
}
