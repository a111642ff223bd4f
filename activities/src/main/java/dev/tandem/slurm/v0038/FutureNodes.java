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
 * The nodes slurm.conf declares, and which of them with {@code State=FUTURE}. Slurm 22.05 deletes
 * dynamic nodes only ({@code scontrol delete} would remove declared ones too, static machines
 * included, until the next restart); a FUTURE-declared node is returned to FUTURE instead, while
 * doing that to a static node would hide a real machine. Neither REST nor scontrol says how a node
 * was declared, so the file is read (and re-read when it changes). {@code Include} lines are not
 * followed.
 */
final class FutureNodes {
  private final Path conf;
  private FileTime readMtime;
  private Set<String> names = Set.of();
  private Set<String> declared = Set.of();

  FutureNodes(Path conf) {
    this.conf = conf;
  }

  /** Whether {@code node} is declared FUTURE; empty when there is no readable slurm.conf. */
  synchronized Optional<Boolean> declaredFuture(String node) {
    return reload() ? Optional.of(names.contains(node)) : Optional.empty();
  }

  /**
   * Whether slurm.conf declares {@code node} at all (any state); empty when there is no readable
   * slurm.conf. A node Slurm knows that slurm.conf does not declare is a dynamic node.
   */
  synchronized Optional<Boolean> declared(String node) {
    return reload() ? Optional.of(declared.contains(node)) : Optional.empty();
  }

  private boolean reload() {
    if (conf == null) {
      return false;
    }
    try {
      FileTime mtime = Files.getLastModifiedTime(conf);
      if (!mtime.equals(readMtime)) {
        List<String> lines = Files.readAllLines(conf);
        names = parse(lines, false);
        declared = parse(lines, true);
        readMtime = mtime;
      }
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  static Set<String> parse(List<String> lines) {
    return parse(lines, false);
  }

  /** The FUTURE-declared names, or with {@code any} every declared name. */
  static Set<String> parse(List<String> lines, boolean any) {
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
      if (any || "FUTURE".equals(effective)) {
        out.addAll(Hostlist.expand(names));
      }
    }
    return out;
  }
}
