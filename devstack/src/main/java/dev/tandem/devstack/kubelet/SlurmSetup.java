package dev.tandem.devstack.kubelet;

import dev.tandem.slurm.Hostlist;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The local Slurm as {@code scripts/slurm-local.sh} describes it: the env file {@code
 * $TANDEM_SLURM_DIR/slurm.env} ({@code SLURM_CONF}, {@code SLURMD_BIN}, {@code TANDEM_SLURM_POOLS})
 * and, from the slurm.conf it names, the declared node names ({@code NodeName=} lines expanded with
 * {@link Hostlist}) and {@code SlurmdSpoolDir}. Reloaded whenever either file changes, so a Slurm
 * restarted with more pools is picked up without restarting the kubelet.
 */
final class SlurmSetup {
  /** One snapshot of the two files; {@code problem} is non-null when they are unusable. */
  record Snapshot(
      Path envFile,
      Path slurmConf,
      String slurmdBin,
      String scontrolBin,
      String pools,
      Set<String> nodeNames,
      String spoolDirPattern,
      String problem) {
    boolean declares(String node) {
      return nodeNames.contains(node);
    }
  }

  private final Path envFile;
  private long envStamp = Long.MIN_VALUE;
  private long confStamp = Long.MIN_VALUE;
  private Snapshot current;

  SlurmSetup(Path envFile) {
    this.envFile = envFile;
  }

  /** The env file used when none is configured: {@code $TANDEM_SLURM_DIR/slurm.env}. */
  static Path defaultEnvFile(Map<String, String> env) {
    String dir = env.getOrDefault("TANDEM_SLURM_DIR", "/var/tmp/tandem-slurm");
    return Path.of(dir, "slurm.env");
  }

  synchronized Snapshot get() {
    long e = stamp(envFile);
    Path conf = current == null ? null : current.slurmConf();
    long c = conf == null ? Long.MIN_VALUE : stamp(conf);
    if (current == null || e != envStamp || c != confStamp) {
      current = load();
      envStamp = e;
      confStamp = current.slurmConf() == null ? Long.MIN_VALUE : stamp(current.slurmConf());
    }
    return current;
  }

  private Snapshot load() {
    if (!Files.isRegularFile(envFile)) {
      return broken(
          null,
          "no Slurm env file at "
              + envFile
              + ": start the local Slurm with scripts/slurm-local.sh start (or set TANDEM_SLURM_DIR)");
    }
    Map<String, String> env;
    try {
      env = parseEnv(Files.readAllLines(envFile, StandardCharsets.UTF_8));
    } catch (IOException ex) {
      return broken(null, "cannot read " + envFile + ": " + ex.getMessage());
    }
    String confValue = env.get("SLURM_CONF");
    if (confValue == null || confValue.isBlank()) {
      return broken(null, envFile + " does not set SLURM_CONF");
    }
    Path conf = Path.of(confValue);
    String bin = env.getOrDefault("SLURMD_BIN", "slurmd");
    String scontrol = env.get("SCONTROL_BIN");
    String pools = env.getOrDefault("TANDEM_SLURM_POOLS", "");
    try {
      List<String> lines = Files.readAllLines(conf, StandardCharsets.UTF_8);
      Set<String> names = new LinkedHashSet<>();
      String spool = null;
      for (String raw : lines) {
        String line = raw.contains("#") ? raw.substring(0, raw.indexOf('#')) : raw;
        for (String token : line.trim().split("\\s+")) {
          int eq = token.indexOf('=');
          if (eq <= 0) {
            continue;
          }
          String key = token.substring(0, eq).toLowerCase(Locale.ROOT);
          String value = token.substring(eq + 1);
          if (key.equals("slurmdspooldir")) {
            spool = value;
          }
        }
        String first = line.trim().split("\\s+")[0];
        if (first.toLowerCase(Locale.ROOT).startsWith("nodename=")) {
          String list = first.substring("nodename=".length());
          if (!list.equalsIgnoreCase("DEFAULT")) {
            names.addAll(Hostlist.expand(list));
          }
        }
      }
      return new Snapshot(envFile, conf, bin, scontrol, pools, Set.copyOf(names), spool, null);
    } catch (IOException | IllegalArgumentException ex) {
      return broken(conf, "cannot read the node names of " + conf + ": " + ex.getMessage());
    }
  }

  private Snapshot broken(Path conf, String problem) {
    return new Snapshot(envFile, conf, null, null, "", Set.of(), null, problem);
  }

  /** {@code KEY=VALUE} lines, optionally {@code export}ed and quoted, {@code #} comments. */
  static Map<String, String> parseEnv(List<String> lines) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String raw : lines) {
      String line = raw.trim();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      if (line.startsWith("export ")) {
        line = line.substring("export ".length()).trim();
      }
      int eq = line.indexOf('=');
      if (eq <= 0) {
        continue;
      }
      String value = line.substring(eq + 1).trim();
      if (value.length() >= 2
          && ((value.startsWith("\"") && value.endsWith("\""))
              || (value.startsWith("'") && value.endsWith("'")))) {
        value = value.substring(1, value.length() - 1);
      }
      out.put(line.substring(0, eq).trim(), value);
    }
    return out;
  }

  private static long stamp(Path p) {
    try {
      return Files.getLastModifiedTime(p).toMillis() ^ Files.size(p) * 31;
    } catch (IOException e) {
      return -1;
    }
  }

  /** Why a second dynamic slurmd pod cannot start yet, and how to run more at once. */
  static String portBusy(String node, String holder, SlurmSetup.Snapshot snap) {
    String prefix = node.contains("-") ? node.substring(0, node.lastIndexOf('-')) : node;
    return "Slurm node \""
        + node
        + "\" is not declared in "
        + snap.slurmConf()
        + ", so it would be a dynamic node (slurmd -Z), and dynamic node "
        + holder
        + " already uses the one SlurmdPort: Slurm 22.05 reaches every dynamic node at that"
        + " port, so on 127.0.0.1 only one runs at a time. It starts when "
        + holder
        + " stops. For more nodes at once declare a pool in TANDEM_SLURM_POOLS (prefix:count,"
        + " currently \""
        + snap.pools()
        + "\"; e.g. add "
        + prefix
        + ":8) and restart the local Slurm (docs/slurm-local.md, \"Dynamic nodes\").";
  }
}
