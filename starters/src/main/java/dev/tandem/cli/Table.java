package dev.tandem.cli;

import java.util.ArrayList;
import java.util.List;

/** Plain aligned columns, like kubectl's tables. Cells are cut to keep lines readable. */
final class Table {
  private Table() {}

  static final int MAX_CELL = 60;

  static String render(List<String> headers, List<List<String>> rows) {
    List<List<String>> all = new ArrayList<>();
    all.add(headers);
    for (List<String> r : rows) {
      List<String> cut = new ArrayList<>();
      for (String c : r) {
        String s = c == null || c.isEmpty() ? "-" : c.replace('\n', ' ');
        cut.add(s.length() > MAX_CELL ? s.substring(0, MAX_CELL - 3) + "..." : s);
      }
      all.add(cut);
    }
    int[] w = new int[headers.size()];
    for (List<String> r : all) {
      for (int i = 0; i < w.length; i++) {
        w[i] = Math.max(w[i], r.get(i).length());
      }
    }
    StringBuilder b = new StringBuilder();
    for (List<String> r : all) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < w.length; i++) {
        line.append(r.get(i));
        if (i < w.length - 1) {
          line.append(" ".repeat(w[i] - r.get(i).length() + 3));
        }
      }
      b.append(line.toString().stripTrailing()).append('\n');
    }
    return b.toString();
  }
}
