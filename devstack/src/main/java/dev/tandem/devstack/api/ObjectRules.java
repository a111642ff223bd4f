package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.devstack.api.ApiException.Cause;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Defaulting and validation a real API server applies to metadata and to the built-in kinds whose
 * rules Tandem's correctness depends on (pods above all: a pod's spec is immutable apart from a few
 * fields, so binding must go through the binding subresource, not a patch of spec.nodeName).
 */
final class ObjectRules {
  private ObjectRules() {}

  static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");
  static final Pattern DNS_LABEL = Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$");
  private static final Pattern LABEL_NAME =
      Pattern.compile("^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$");

  static final String POD_UPDATE_FORBIDDEN =
      "pod updates may not change fields other than `spec.containers[*].image`,"
          + "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only"
          + " additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to"
          + " be set to 1 if it was previously negative)";

  /** Name and label checks every object gets. */
  static void validateMetadata(ResourceType t, ObjectNode obj, List<Cause> errors) {
    String name = Json.text(obj, "metadata", "name");
    if (name != null) {
      boolean label = t.plural().equals("namespaces");
      Pattern p = label ? DNS_LABEL : DNS_SUBDOMAIN;
      int max = label ? 63 : 253;
      if (name.length() > max || !p.matcher(name).matches()) {
        errors.add(
            Cause.invalid(
                "metadata.name",
                "Invalid value: "
                    + Json.quote(name)
                    + ": a lowercase RFC 1123 "
                    + (label ? "label" : "subdomain")
                    + " must consist of lower case alphanumeric characters, '-'"
                    + (label ? "" : " or '.'")
                    + ", and must start and end with an alphanumeric character"));
      }
    }
    JsonNode labels = Json.at(obj, "metadata", "labels");
    if (labels != null && labels.isObject()) {
      labels
          .fields()
          .forEachRemaining(
              e -> {
                String v = e.getValue().asText();
                if (!e.getValue().isTextual()
                    || v.length() > 63
                    || !LABEL_NAME.matcher(v).matches()) {
                  errors.add(
                      Cause.invalid(
                          "metadata.labels",
                          "Invalid value: "
                              + Json.quote(v)
                              + ": a valid label must be an empty string or consist of alphanumeric"
                              + " characters, '-', '_' or '.', and must start and end with an"
                              + " alphanumeric character"));
                }
              });
    }
  }

  /** Defaults the API server fills in on create (and before comparing on update). */
  static void defaults(ResourceType t, ObjectNode obj, boolean create) {
    if (!t.group().isEmpty()) {
      return;
    }
    switch (t.kind()) {
      case "Pod" -> defaultPod(obj, create);
      case "Namespace" -> {
        if (create) {
          ObjectNode labels = Json.child(Json.meta(obj), "labels");
          labels.put("kubernetes.io/metadata.name", Json.text(obj, "metadata", "name"));
          ObjectNode spec = Json.child(obj, "spec");
          if (!spec.has("finalizers")) {
            spec.putArray("finalizers").add("kubernetes");
          }
          obj.putObject("status").put("phase", "Active");
        }
      }
      default -> {}
    }
  }

  private static void defaultPod(ObjectNode pod, boolean create) {
    ObjectNode spec = Json.child(pod, "spec");
    putIfAbsent(spec, "schedulerName", "default-scheduler");
    putIfAbsent(spec, "restartPolicy", "Always");
    putIfAbsent(spec, "dnsPolicy", "ClusterFirst");
    if (!spec.has("terminationGracePeriodSeconds")) {
      spec.put("terminationGracePeriodSeconds", 30);
    }
    if (!spec.has("enableServiceLinks")) {
      spec.put("enableServiceLinks", true);
    }
    if (!spec.has("securityContext")) {
      spec.putObject("securityContext");
    }
    for (String list : List.of("containers", "initContainers")) {
      for (JsonNode c : spec.path(list)) {
        if (c instanceof ObjectNode co) {
          putIfAbsent(co, "terminationMessagePath", "/dev/termination-log");
          putIfAbsent(co, "terminationMessagePolicy", "File");
          String image = co.path("image").asText("");
          boolean latest = !image.contains(":") || image.endsWith(":latest");
          putIfAbsent(co, "imagePullPolicy", latest ? "Always" : "IfNotPresent");
          if (!co.has("resources")) {
            co.putObject("resources");
          }
        }
      }
    }
    if (create) {
      // The API server ignores a status sent on create: a new pod is Pending.
      ObjectNode status = pod.putObject("status");
      status.put("phase", "Pending");
      status.put("qosClass", qosClass(spec));
    }
  }

  private static void putIfAbsent(ObjectNode o, String k, String v) {
    if (!o.hasNonNull(k) || o.get(k).asText().isEmpty()) {
      o.put(k, v);
    }
  }

  static String qosClass(JsonNode spec) {
    boolean any = false;
    boolean guaranteed = true;
    for (JsonNode c : spec.path("containers")) {
      JsonNode req = c.path("resources").path("requests");
      JsonNode lim = c.path("resources").path("limits");
      if (req.size() > 0 || lim.size() > 0) {
        any = true;
      }
      for (String r : List.of("cpu", "memory")) {
        JsonNode l = lim.get(r);
        JsonNode q = req.has(r) ? req.get(r) : l;
        if (l == null || !l.asText().equals(q.asText())) {
          guaranteed = false;
        }
      }
    }
    if (!any) {
      return "BestEffort";
    }
    return guaranteed ? "Guaranteed" : "Burstable";
  }

  /** Validation of built-in kinds on create. */
  static void validateCreate(ResourceType t, ObjectNode obj, List<Cause> errors) {
    if (t.group().isEmpty() && t.kind().equals("Pod")) {
      JsonNode containers = Json.at(obj, "spec", "containers");
      if (containers == null || !containers.isArray() || containers.isEmpty()) {
        errors.add(Cause.required("spec.containers"));
        return;
      }
      Set<String> names = new HashSet<>();
      for (int i = 0; i < containers.size(); i++) {
        JsonNode c = containers.get(i);
        String n = c.path("name").asText("");
        if (n.isEmpty()) {
          errors.add(Cause.required("spec.containers[" + i + "].name"));
        } else if (!names.add(n)) {
          errors.add(
              new Cause(
                  "spec.containers[" + i + "].name",
                  "FieldValueDuplicate",
                  "Duplicate value: " + Json.quote(n)));
        }
        if (c.path("image").asText("").isEmpty()) {
          errors.add(Cause.required("spec.containers[" + i + "].image"));
        }
      }
    }
    if (t.kind().equals("CustomResourceDefinition")) {
      CrdRules.validate(obj, errors);
    }
    if (t.group().equals("policy") && t.kind().equals("PodDisruptionBudget")) {
      BudgetRules.validate(obj, errors);
    }
  }

  /** A pod's spec is immutable apart from images, activeDeadlineSeconds and added tolerations. */
  static void validatePodUpdate(ObjectNode oldPod, ObjectNode newPod, List<Cause> errors) {
    ObjectNode a = (ObjectNode) oldPod.path("spec").deepCopy();
    ObjectNode b = newPod.path("spec").isObject() ? newPod.get("spec").deepCopy() : Json.object();
    for (String list : List.of("containers", "initContainers")) {
      JsonNode ca = a.path(list);
      JsonNode cb = b.path(list);
      if (ca.isArray() && cb.isArray() && ca.size() == cb.size()) {
        for (int i = 0; i < cb.size(); i++) {
          ((ObjectNode) cb.get(i)).set("image", ca.get(i).get("image"));
        }
      }
    }
    if (a.has("activeDeadlineSeconds")) {
      b.set("activeDeadlineSeconds", a.get("activeDeadlineSeconds"));
    } else {
      b.remove("activeDeadlineSeconds");
    }
    JsonNode ta = a.path("tolerations");
    JsonNode tb = b.path("tolerations");
    if (tb.isArray() && (ta.isMissingNode() || containsAll((ArrayNode) tb, ta))) {
      if (ta.isMissingNode()) {
        b.remove("tolerations");
      } else {
        b.set("tolerations", ta);
      }
    }
    if (!a.equals(b)) {
      errors.add(Cause.forbidden("spec", POD_UPDATE_FORBIDDEN));
    }
  }

  private static boolean containsAll(ArrayNode bigger, JsonNode smaller) {
    List<JsonNode> all = new ArrayList<>();
    bigger.forEach(all::add);
    for (JsonNode n : smaller) {
      if (!all.contains(n)) {
        return false;
      }
    }
    return true;
  }
}
