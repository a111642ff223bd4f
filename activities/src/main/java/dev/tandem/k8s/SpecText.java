package dev.tandem.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/** Small helpers shared by the spec readers: value quoting and unknown-field checks. */
final class SpecText {
  private SpecText() {}

  /** A value as the user wrote it, in JSON (strings quoted), cut to a readable length. */
  static String quote(JsonNode v) {
    String s = v == null ? "null" : v.toString();
    return s.length() <= 60 ? s : s.substring(0, 57) + "...";
  }

  /**
   * Reports members of {@code obj} that the schema does not declare. A real API server prunes them
   * silently (so a typo like {@code replica} just vanishes); where the schema preserves unknown
   * fields they stay. Either way the user meant something, so say so.
   */
  static void unknownFields(JsonNode obj, String path, Set<String> known, List<String> problems) {
    List<String> unknown = new ArrayList<>();
    Iterator<String> it = obj.fieldNames();
    while (it.hasNext()) {
      String f = it.next();
      if (!known.contains(f)) {
        unknown.add(f);
      }
    }
    for (String f : unknown) {
      problems.add(
          path + "." + f + ": unknown field; remove it (known fields: " + sorted(known) + ")");
    }
  }

  private static String sorted(Set<String> s) {
    List<String> l = new ArrayList<>(s);
    java.util.Collections.sort(l);
    return String.join(", ", l);
  }

  /** The member, or null when absent or JSON null (the two mean the same in Kubernetes). */
  static JsonNode member(JsonNode obj, String name) {
    JsonNode v = obj == null ? null : obj.get(name);
    return v == null || v.isNull() ? null : v;
  }
}
