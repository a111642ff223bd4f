package dev.tandem.devstack.kubelet;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Dynamic Slurm nodes for slurmd pods whose name slurm.conf does not declare: the pod contract of
 * {@code docs/nodeset.md} ({@code slurmd -Z -N "$SLURM_NODE_NAME" --conf "$SLURM_NODE_CONF"}) run
 * on the local Slurm.
 *
 * <ol>
 *   <li>Each dynamic slurmd gets a private config dir {@code $TANDEM_SLURM_DIR/dyn/<pod>/}: a copy
 *       of slurm.conf and a gres.conf written from the pod's {@code Gres=} (fake device files,
 *       symlinks to {@code /dev/null}, {@code AutoDetect=off}): 22.05's slurmd drops GPUs without
 *       files, and slurmctld then marks the node INVAL. gres.conf is read from slurm.conf's dir.
 *   <li>slurmd registers the node with slurmctld, which creates it from the {@code --conf} line
 *       (features, GRES, weight; partitions through slurm.conf's feature node sets).
 *   <li>slurmctld reaches every dynamic node at {@code NodeAddr:SlurmdPort} (22.05 keeps no port
 *       per dynamic node), so on 127.0.0.1 only ONE dynamic slurmd can run per local Slurm; {@link
 *       PodWorker} keeps the others waiting ({@link #PORT_BUSY}).
 *   <li>Like a real kubelet, this never deletes the Slurm record: slurmctld keeps the old record's
 *       settings when a slurmd of the same name registers again, and the node workflow removes the
 *       old pod's record before it creates the new pod (docs/nodeset.md, "The pod contract").
 * </ol>
 */
final class DynamicNodes {

  static final String PORT_BUSY = "SlurmdPortBusy";

  /** One GRES entry: {@code name[:type][:no_consume]:count}. */
  private static final Pattern GRES =
      Pattern.compile("([A-Za-z0-9_]+)(?::([A-Za-z0-9_.+-]+))?(?::no_consume)?:([0-9]+)");

  /** Fake device files per node: more GPUs in one pod's Gres= are refused. */
  static final int MAX_DEVICES = 64;

  private DynamicNodes() {}

  /** The private config dir of {@code pod}'s slurmd, in the state dir beside the env file. */
  static Path confDir(SlurmSetup.Snapshot snap, String pod) {
    return snap.envFile().toAbsolutePath().getParent().resolve("dyn").resolve(pod);
  }

  /**
   * Writes {@code pod}'s config dir and returns slurmd's argv.
   *
   * @throws IllegalArgumentException when {@code nodeConf} names a GRES this cannot back
   */
  static List<String> prepare(SlurmSetup.Snapshot snap, String pod, String nodeConf)
      throws IOException {
    Path dir = confDir(snap, pod);
    Path dev = dir.resolve("dev");
    Files.createDirectories(dev);
    String gres = gresConf(pod, gresOf(nodeConf), dev);
    Path conf = dir.resolve("slurm.conf");
    Files.copy(snap.slurmConf(), dir.resolve("slurm.conf.tmp"), REPLACE);
    Files.move(dir.resolve("slurm.conf.tmp"), conf, REPLACE);
    Files.writeString(dir.resolve("gres.conf"), gres, StandardCharsets.UTF_8);
    List<String> cmd =
        new ArrayList<>(List.of(snap.slurmdBin(), "-D", "-Z", "-N", pod, "-f", conf.toString()));
    if (nodeConf != null && !nodeConf.isBlank()) {
      cmd.add("--conf");
      cmd.add(nodeConf.trim());
    }
    return cmd;
  }

  private static final java.nio.file.CopyOption REPLACE =
      java.nio.file.StandardCopyOption.REPLACE_EXISTING;

  /** The {@code Gres=} value of a {@code --conf} line, or "". */
  static String gresOf(String nodeConf) {
    if (nodeConf == null) {
      return "";
    }
    for (String token : nodeConf.trim().split("\\s+")) {
      if (token.toLowerCase(Locale.ROOT).startsWith("gres=")) {
        return token.substring("gres=".length());
      }
    }
    return "";
  }

  /**
   * gres.conf for one node: {@code AutoDetect=off}, and per GPU entry of {@code gres} a line with
   * that many fake device files (distinct files per type); other GRES get a {@code Count=}.
   */
  static String gresConf(String pod, String gres, Path devDir) throws IOException {
    StringBuilder out =
        new StringBuilder("# Written by the local kubelet for dynamic node ").append(pod);
    out.append("\nAutoDetect=off\n");
    if (gres == null || gres.isBlank()) {
      return out.toString();
    }
    int next = 0;
    for (String entry : gres.split(",")) {
      var m = GRES.matcher(entry.trim());
      if (!m.matches()) {
        throw new IllegalArgumentException("cannot read GRES entry \"" + entry + "\"");
      }
      String name = m.group(1);
      String type = m.group(2);
      int count = Integer.parseInt(m.group(3));
      out.append("NodeName=").append(pod).append(" Name=").append(name);
      if (type != null) {
        out.append(" Type=").append(type);
      }
      if (!name.equals("gpu") || count == 0) {
        out.append(" Count=").append(count).append('\n');
        continue;
      }
      if (next + count > MAX_DEVICES) {
        throw new IllegalArgumentException(
            "GRES \"" + gres + "\" needs more than " + MAX_DEVICES + " fake GPU files");
      }
      for (int i = next; i < next + count; i++) {
        Path f = devDir.resolve("gpu" + i);
        if (!Files.exists(f, LinkOption.NOFOLLOW_LINKS)) {
          Files.createSymbolicLink(f, Path.of("/dev/null"));
        }
      }
      out.append(" File=")
          .append(devDir.resolve("gpu"))
          .append(count == 1 ? Integer.toString(next) : "[" + next + "-" + (next + count - 1) + "]")
          .append('\n');
      next += count;
    }
    return out.toString();
  }
}
