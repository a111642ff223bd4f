package dev.tandem.slurm;

import java.util.ArrayList;
import java.util.List;

/**
 * Slurm hostlist expressions: {@code n[1-3,5],gpu-a-[00-02]} expands to {@code n1 n2 n3 n5 gpu-a-00
 * gpu-a-01 gpu-a-02}. Slurm answers with compressed lists (a job's {@code nodes}); Tandem needs
 * single names to know which jobs run on which node.
 */
public final class Hostlist {
  private Hostlist() {}

  /** Upper bound on expansion, so a malformed range cannot exhaust memory. */
  static final int MAX_HOSTS = 1_000_000;

  /** Expands a hostlist expression; blank gives an empty list. */
  public static List<String> expand(String expression) {
    List<String> out = new ArrayList<>();
    if (expression == null || expression.isBlank() || "(null)".equals(expression)) {
      return out;
    }
    for (String part : splitTopLevel(expression.trim())) {
      expandOne(part, out);
    }
    return out;
  }

  /** Splits on commas that are not inside brackets. */
  private static List<String> splitTopLevel(String s) {
    List<String> parts = new ArrayList<>();
    int depth = 0;
    int start = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '[') {
        depth++;
      } else if (c == ']') {
        depth--;
        if (depth < 0) {
          throw new IllegalArgumentException("unbalanced ']' in hostlist: " + s);
        }
      } else if (c == ',' && depth == 0) {
        addPart(parts, s.substring(start, i));
        start = i + 1;
      }
    }
    if (depth != 0) {
      throw new IllegalArgumentException("unbalanced '[' in hostlist: " + s);
    }
    addPart(parts, s.substring(start));
    return parts;
  }

  private static void addPart(List<String> parts, String p) {
    String t = p.trim();
    if (!t.isEmpty()) {
      parts.add(t);
    }
  }

  /** Expands one host expression that may hold several bracket groups ({@code r[1-2]n[1-2]}). */
  private static void expandOne(String expr, List<String> out) {
    int open = expr.indexOf('[');
    if (open < 0) {
      add(out, expr);
      return;
    }
    int close = expr.indexOf(']', open);
    String prefix = expr.substring(0, open);
    String rest = expr.substring(close + 1);
    List<String> tails = new ArrayList<>();
    if (rest.isEmpty()) {
      tails.add("");
    } else {
      expandOne(rest, tails);
    }
    for (String range : expr.substring(open + 1, close).split(",")) {
      String r = range.trim();
      if (r.isEmpty()) {
        continue;
      }
      int dash = r.indexOf('-');
      if (dash < 0) {
        for (String t : tails) {
          add(out, prefix + r + t);
        }
        continue;
      }
      String lo = r.substring(0, dash);
      String hi = r.substring(dash + 1);
      long a;
      long b;
      try {
        a = Long.parseLong(lo);
        b = Long.parseLong(hi);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("bad range '" + r + "' in hostlist: " + expr, e);
      }
      if (b < a || b - a >= MAX_HOSTS) {
        throw new IllegalArgumentException("bad range '" + r + "' in hostlist: " + expr);
      }
      int width = lo.length();
      for (long i = a; i <= b; i++) {
        String num = Long.toString(i);
        while (num.length() < width) {
          num = "0" + num;
        }
        for (String t : tails) {
          add(out, prefix + num + t);
        }
      }
    }
  }

  private static void add(List<String> out, String host) {
    if (out.size() >= MAX_HOSTS) {
      throw new IllegalArgumentException("hostlist expands to more than " + MAX_HOSTS + " hosts");
    }
    out.add(host);
  }
}
