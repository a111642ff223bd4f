package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.devstack.api.ApiException.Cause;
import java.util.List;
import java.util.Map;

/** What the API server checks on a CustomResourceDefinition, and the status it gives it. */
final class CrdRules {
  private CrdRules() {}

  static void validate(ObjectNode crd, List<Cause> errors) {
    JsonNode spec = crd.path("spec");
    String group = spec.path("group").asText("");
    String plural = spec.path("names").path("plural").asText("");
    String name = Json.text(crd, "metadata", "name");
    if (group.isEmpty()) {
      errors.add(Cause.required("spec.group"));
    }
    if (plural.isEmpty()) {
      errors.add(Cause.required("spec.names.plural"));
    }
    if (spec.path("names").path("kind").asText("").isEmpty()) {
      errors.add(Cause.required("spec.names.kind"));
    }
    if (name != null && !name.equals(plural + "." + group)) {
      errors.add(
          Cause.invalid(
              "metadata.name",
              "Invalid value: "
                  + Json.quote(name)
                  + ": must be spec.names.plural+\".\"+spec.group"));
    }
    String scope = spec.path("scope").asText("");
    if (!scope.equals("Namespaced") && !scope.equals("Cluster")) {
      errors.add(
          new Cause(
              "spec.scope",
              "FieldValueNotSupported",
              "Unsupported value: "
                  + Json.quote(scope)
                  + ": supported values: \"Cluster\", \"Namespaced\""));
    }
    int storage = 0;
    for (JsonNode v : spec.path("versions")) {
      if (v.path("storage").asBoolean(false)) {
        storage++;
      }
      if (v.path("served").asBoolean(false)
          && v.path("schema").path("openAPIV3Schema").isMissingNode()) {
        errors.add(
            Cause.required(
                "spec.versions[" + v.path("name").asText() + "].schema.openAPIV3Schema"));
      }
    }
    if (storage != 1) {
      errors.add(
          Cause.invalid(
              "spec.versions",
              "Invalid value: "
                  + storage
                  + ": must have exactly one version marked as storage version"));
    }
  }

  /** The status a real API server gives a newly registered CRD. */
  static void status(ObjectNode crd) {
    ObjectNode status = crd.putObject("status");
    status.set("acceptedNames", crd.path("spec").path("names").deepCopy());
    ArrayNode conds = status.putArray("conditions");
    String now = Json.now();
    for (Map.Entry<String, String> c :
        Map.of("NamesAccepted", "NoConflicts", "Established", "InitialNamesAccepted").entrySet()) {
      conds
          .addObject()
          .put("type", c.getKey())
          .put("status", "True")
          .put("reason", c.getValue())
          .put("lastTransitionTime", now)
          .put(
              "message",
              c.getKey().equals("Established")
                  ? "the initial names have been accepted"
                  : "no conflicts found");
    }
    ArrayNode stored = status.putArray("storedVersions");
    for (JsonNode v : crd.path("spec").path("versions")) {
      if (v.path("storage").asBoolean(false)) {
        stored.add(v.path("name").asText());
      }
    }
  }
}
