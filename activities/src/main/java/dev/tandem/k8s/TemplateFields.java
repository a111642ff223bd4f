package dev.tandem.k8s;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Finds misspelled fields in a pod template, e.g. {@code imagePullPolice}, before the API server
 * refuses the pod.
 *
 * <p>A field Tandem's Kubernetes model (fabric8) does not know is one of two things: a typo, or a
 * field newer than the model. Tandem cannot tell a new field the cluster knows from one it does not
 * (only the cluster can, and it does: Tandem creates pods with strict field validation). So only a
 * near miss of a known field counts as a typo here:
 *
 * <ol>
 *   <li>Walk the template's JSON and the model's types together (Jackson's view of each class).
 *   <li>A member the type does not declare is a typo when it differs from a declared one only in
 *       case, or by at most two edits (and is at least five characters long): it is reported with
 *       the field meant.
 *   <li>Any other unknown member is left to the API server: it may be newer than the model.
 * </ol>
 */
final class TemplateFields {
  private TemplateFields() {}

  /** Edits that still count as a typo of a known field. */
  static final int MAX_EDITS = 2;

  static void typos(JsonNode template, List<String> problems) {
    walk(template, type(PodTemplateSpec.class), TemplateCheck.PATH, problems);
  }

  private static void walk(JsonNode n, JavaType t, String path, List<String> problems) {
    if (t.isContainerType()) {
      JavaType content = t.getContentType();
      if (n.isArray() && t.isCollectionLikeType()) {
        for (int i = 0; i < n.size(); i++) {
          walk(n.get(i), content, path + "[" + i + "]", problems);
        }
      } else if (n.isObject() && t.isMapLikeType()) {
        Iterator<Map.Entry<String, JsonNode>> it = n.fields();
        while (it.hasNext()) {
          Map.Entry<String, JsonNode> e = it.next();
          walk(e.getValue(), content, path + "." + e.getKey(), problems);
        }
      }
      return;
    }
    if (!n.isObject() || !modelBean(t.getRawClass())) {
      return;
    }
    BeanDescription d = Json.MAPPER.getDeserializationConfig().introspect(t);
    Map<String, JavaType> known = new java.util.TreeMap<>();
    for (BeanPropertyDefinition p : d.findProperties()) {
      if (p.getPrimaryType() != null) {
        known.put(p.getName(), p.getPrimaryType());
      }
    }
    Iterator<Map.Entry<String, JsonNode>> it = n.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      String f = e.getKey();
      JavaType child = known.get(f);
      if (child != null) {
        walk(e.getValue(), child, path + "." + f, problems);
        continue;
      }
      String meant = nearest(f, known.keySet());
      if (meant != null) {
        problems.add(path + "." + f + ": unknown field; did you mean " + meant + "?");
      }
    }
  }

  /** A fabric8 model class read field by field (not a scalar wrapper like Quantity). */
  private static boolean modelBean(Class<?> c) {
    JsonDeserialize custom = c.getAnnotation(JsonDeserialize.class);
    boolean customReader =
        custom != null
            && custom.using() != com.fasterxml.jackson.databind.JsonDeserializer.None.class;
    return c.getName().startsWith("io.fabric8.kubernetes.api.model.") && !customReader;
  }

  private static String nearest(String f, Iterable<String> known) {
    String best = null;
    int bestEdits = Integer.MAX_VALUE;
    for (String k : known) {
      if (k.toLowerCase(Locale.ROOT).equals(f.toLowerCase(Locale.ROOT))) {
        return k;
      }
      int edits = EditDistance.between(f, k);
      if (edits < bestEdits) {
        best = k;
        bestEdits = edits;
      }
    }
    return f.length() >= 5 && bestEdits <= MAX_EDITS ? best : null;
  }

  private static JavaType type(Class<?> c) {
    return Json.MAPPER.getTypeFactory().constructType(c);
  }
}
