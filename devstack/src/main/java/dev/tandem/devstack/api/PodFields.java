package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.Annotated;
import com.fasterxml.jackson.databind.introspect.JacksonAnnotationIntrospector;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Field validation of pod writes as kube-apiserver does it ({@code fieldValidation=Strict|Warn|
 * Ignore}), for the Kubernetes version the local API emulates.
 *
 * <p>A field is unknown when the Pod schema of that version does not have it:
 *
 * <ol>
 *   <li>not in fabric8's Pod model: reading the JSON into {@link Pod} leaves it in some object's
 *       {@code additionalProperties}; writing the model back without them and comparing with the
 *       JSON finds its path (empty values are not compared: the model leaves some out);
 *   <li>or in {@link #NEWER}: fields the model has (it follows a recent Kubernetes) that appeared
 *       after the emulated minor version.
 * </ol>
 *
 * Strict answers 400 {@code Pod in version "v1" cannot be handled as a Pod: strict decoding error:
 * unknown field "<path>", ...}; Warn (the default) drops them with a {@code Warning} header each;
 * Ignore drops them silently.
 */
final class PodFields {
  private PodFields() {}

  /** A pod field and the Kubernetes minor version (1.x) it appeared in. */
  record Newer(Pattern path, int minor, String field) {
    static Newer of(String field, int minor) {
      String re = Pattern.quote(field).replace("[*]", "\\E\\[\\d+\\]\\Q");
      return new Newer(Pattern.compile(re), minor, field);
    }
  }

  /** Small on purpose: the fields Tandem users are likely to meet. Add rows as needed. */
  static final List<Newer> NEWER =
      List.of(
          Newer.of("spec.hostUsers", 25),
          Newer.of("spec.schedulingGates", 26),
          Newer.of("spec.resourceClaims", 26),
          Newer.of("spec.containers[*].resources.claims", 26),
          Newer.of("spec.containers[*].resizePolicy", 27),
          Newer.of("spec.initContainers[*].resizePolicy", 27),
          Newer.of("spec.containers[*].restartPolicy", 28),
          Newer.of("spec.initContainers[*].restartPolicy", 28),
          Newer.of("spec.containers[*].lifecycle.preStop.sleep", 29),
          Newer.of("spec.containers[*].lifecycle.postStart.sleep", 29),
          Newer.of("spec.securityContext.appArmorProfile", 30),
          Newer.of("spec.containers[*].securityContext.appArmorProfile", 30),
          Newer.of("spec.resources", 32));

  /** Reads into the model; unknown fields land in {@code additionalProperties} (or are dropped). */
  private static final ObjectMapper READER =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  /** Writes the model without {@code additionalProperties}. */
  private static final ObjectMapper KNOWN_ONLY =
      new ObjectMapper()
          .setAnnotationIntrospector(
              new JacksonAnnotationIntrospector() {
                @Override
                public Boolean hasAnyGetter(Annotated a) {
                  return Boolean.FALSE;
                }
              });

  /**
   * Applies {@code fieldValidation} to a pod about to be stored: drops unknown fields, returns the
   * warnings, or throws the 400 when Strict.
   */
  static List<String> admit(ObjectNode pod, ApiRequest req, KubeVersion version) {
    String mode = FieldValidation.mode(req);
    List<String> unknown = unknown(pod, version);
    if (unknown.isEmpty()) {
      return List.of();
    }
    List<String> warnings = new ArrayList<>();
    for (String p : unknown) {
      warnings.add("unknown field " + Json.quote(p));
    }
    if ("Strict".equals(mode)) {
      throw ApiException.badRequest(
          "Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: "
              + String.join(", ", warnings));
    }
    for (String p : unknown) {
      remove(pod, p);
    }
    return "Ignore".equals(mode) ? List.of() : warnings;
  }

  /** Paths of the fields of {@code pod} this version does not know, in document order. */
  static List<String> unknown(ObjectNode pod, KubeVersion version) {
    JsonNode known;
    try {
      Pod model = READER.treeToValue(pod, Pod.class);
      known = KNOWN_ONLY.valueToTree(model);
    } catch (Exception e) {
      throw ApiException.badRequest(
          "Pod in version \"v1\" cannot be handled as a Pod: " + e.getMessage());
    }
    List<String> out = new ArrayList<>();
    diff(pod, known, "", out, version);
    return out;
  }

  private static void diff(
      JsonNode given, JsonNode known, String path, List<String> out, KubeVersion version) {
    if (given.isObject()) {
      Iterator<Map.Entry<String, JsonNode>> it = given.fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> e = it.next();
        String p = path.isEmpty() ? e.getKey() : path + "." + e.getKey();
        JsonNode v = e.getValue();
        JsonNode k = known == null ? null : known.get(e.getKey());
        if (newer(p, version)) {
          out.add(p);
        } else if (k == null) {
          if (!empty(v) && !free(path)) {
            out.add(p);
          }
        } else {
          diff(v, k, p, out, version);
        }
      }
    } else if (given.isArray() && known != null && known.isArray()) {
      for (int i = 0; i < given.size() && i < known.size(); i++) {
        diff(given.get(i), known.get(i), path + "[" + i + "]", out, version);
      }
    }
  }

  /** Objects whose keys are data, not schema (labels, quantities, managed fields...). */
  private static final java.util.Set<String> FREE =
      java.util.Set.of(
          "labels",
          "annotations",
          "nodeSelector",
          "limits",
          "requests",
          "overhead",
          "allocatedResources",
          "capacity",
          "data",
          "fieldsV1",
          "volumeAttributes",
          "options");

  private static boolean free(String parentPath) {
    String last = parentPath.substring(parentPath.lastIndexOf('.') + 1);
    return FREE.contains(last);
  }

  private static boolean newer(String path, KubeVersion version) {
    for (Newer n : NEWER) {
      if (n.minor() > version.minor() && n.path().matcher(path).matches()) {
        return true;
      }
    }
    return false;
  }

  private static boolean empty(JsonNode v) {
    return v.isNull() || (v.isContainerNode() && v.isEmpty());
  }

  /** Removes the field at a path like {@code spec.containers[0].resizePolicy}. */
  static void remove(ObjectNode root, String path) {
    String[] parts = path.split("\\.");
    JsonNode cur = root;
    for (int i = 0; i < parts.length - 1 && cur != null; i++) {
      cur = step(cur, parts[i]);
    }
    if (cur instanceof ObjectNode o) {
      o.remove(parts[parts.length - 1]);
    }
  }

  private static JsonNode step(JsonNode cur, String part) {
    int b = part.indexOf('[');
    if (b < 0) {
      return cur.get(part);
    }
    JsonNode arr = cur.get(part.substring(0, b));
    int idx = Integer.parseInt(part.substring(b + 1, part.length() - 1));
    return arr instanceof ArrayNode a && idx < a.size() ? a.get(idx) : null;
  }
}
