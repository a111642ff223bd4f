package dev.tandem.slurm.v0038;

import dev.tandem.slurm.Hostlist;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The nodes slurm.conf declares with {@code State=FUTURE}. Slurm 22.05 cannot delete nodes; a
 * FUTURE-declared node can be returned to FUTURE instead, while doing that to a static node would
 * hide a real machine. Neither REST nor scontrol says how a node was declared, so the file is read
 * (and re-read when it changes). {@code Include} lines are not followed.
 */
final class FutureNodes {
  private final Path conf;
  private FileTime readMtime;
  private Set<String> names = Set.of();

  FutureNodes(Path conf) {
    this.conf = conf;
  }

  /** Whether {@code node} is declared FUTURE; empty when there is no readable slurm.conf. */
  synchronized Optional<Boolean> declaredFuture(String node) {
    if (conf == null) {
      return Optional.empty();
    }
    try {
      FileTime mtime = Files.getLastModifiedTime(conf);
      if (!mtime.equals(readMtime)) {
        names = parse(Files.readAllLines(conf));
        readMtime = mtime;
      }
    } catch (IOException e) {
      return Optional.empty();
    }
    return Optional.of(names.contains(node));
  }

  static Set<String> parse(List<String> lines) {
    Set<String> out = new HashSet<>();
    String defaultState = null;
    StringBuilder logical = new StringBuilder();
    for (String raw : lines) {
      String line = raw;
      int hash = line.indexOf('#');
      if (hash >= 0) {
        line = line.substring(0, hash);
      }
      if (line.endsWith("\\")) {
        logical.append(line, 0, line.length() - 1).append(' ');
        continue;
      }
      logical.append(line);
      String l = logical.toString().trim();
      logical.setLength(0);
      if (!l.regionMatches(true, 0, "NodeName=", 0, 9)) {
        continue;
      }
      String names = null;
      String state = null;
      for (String kv : l.split("\\s+")) {
        int eq = kv.indexOf('=');
        if (eq <= 0) {
          continue;
        }
        String key = kv.substring(0, eq).toLowerCase(Locale.ROOT);
        String value = kv.substring(eq + 1);
        if (key.equals("nodename")) {
          names = value;
        } else if (key.equals("state")) {
          state = value.toUpperCase(Locale.ROOT);
        }
      }
      if (names == null) {
        continue;
      }
      if (names.equalsIgnoreCase("DEFAULT")) {
        defaultState = state;
        continue;
      }
      String effective = state != null ? state : defaultState;
      if ("FUTURE".equals(effective)) {
        out.addAll(Hostlist.expand(names));
      }
    }
    return out;
  }
}
