package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Set;

/**
 * One resource the local API serves: what discovery advertises and what the request handlers need
 * to give it real API semantics (scope, subresources, selectable fields, schema).
 *
 * @param fieldLabels field selectors this resource accepts beyond {@code metadata.name} and {@code
 *     metadata.namespace}; anything else is refused with 400, as a real API server does
 * @param schema the CRD's {@code openAPIV3Schema} (custom resources only), else null
 * @param smp whether strategic merge patch is supported (built-ins whose list merge keys we know)
 * @param createOnly a virtual resource such as {@code bindings} that only accepts POST
 */
record ResourceType(
    String group,
    String version,
    String plural,
    String singular,
    String kind,
    boolean namespaced,
    List<String> shortNames,
    List<String> categories,
    boolean statusSubresource,
    Scale scale,
    Set<String> fieldLabels,
    JsonNode schema,
    boolean custom,
    boolean tracksGeneration,
    boolean smp,
    boolean createOnly,
    List<PrinterColumn> columns) {

  /** The CRD scale subresource's JSON paths ({@code .spec.replicas} syntax). */
  record Scale(String specReplicasPath, String statusReplicasPath, String labelSelectorPath) {}

  /** An additional printer column of a CRD (name, type, JSON path). */
  record PrinterColumn(String name, String type, String jsonPath, String format, int priority) {}

  String apiVersion() {
    return group.isEmpty() ? version : group + "/" + version;
  }

  String groupVersion() {
    return apiVersion();
  }

  /** {@code pods} or {@code leases.coordination.k8s.io}: how error messages name a resource. */
  String qualifiedResource() {
    return group.isEmpty() ? plural : plural + "." + group;
  }

  /** {@code Pod} or {@code NodeSet.tandem.dev}: how validation errors name a kind. */
  String qualifiedKind() {
    return group.isEmpty() ? kind : kind + "." + group;
  }

  String listKind() {
    return kind + "List";
  }

  boolean hasScale() {
    return scale != null;
  }

  /** The collection path, e.g. {@code /api/v1/namespaces/ns/pods} or {@code /api/v1/nodes}. */
  String collectionPath(String namespace) {
    String base = group.isEmpty() ? "/api/" + version : "/apis/" + group + "/" + version;
    if (namespaced && namespace != null) {
      return base + "/namespaces/" + namespace + "/" + plural;
    }
    return base + "/" + plural;
  }

  String objectPath(String namespace, String name) {
    return collectionPath(namespace) + "/" + name;
  }

  List<String> verbs() {
    if (createOnly) {
      return List.of("create");
    }
    return List.of(
        "create", "delete", "deletecollection", "get", "list", "patch", "update", "watch");
  }
}
