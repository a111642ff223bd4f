package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/** Built-in resources plus every served version of every registered CRD. */
final class ResourceCatalog {
  private final Map<String, ResourceType> builtins = new LinkedHashMap<>();
  private volatile Map<String, ResourceType> custom = Map.of();

  ResourceCatalog() {
    for (ResourceType t : BuiltinTypes.ALL) {
      builtins.put(key(t.group(), t.version(), t.plural()), t);
    }
  }

  private static String key(String group, String version, String plural) {
    return group + "/" + version + "/" + plural;
  }

  Optional<ResourceType> find(String group, String version, String plural) {
    String k = key(group, version, plural);
    ResourceType t = builtins.get(k);
    return Optional.ofNullable(t != null ? t : custom.get(k));
  }

  ResourceType require(String group, String version, String plural) {
    return find(group, version, plural)
        .orElseThrow(
            () -> new IllegalStateException("unknown built-in " + key(group, version, plural)));
  }

  List<ResourceType> all() {
    List<ResourceType> out = new ArrayList<>(builtins.values());
    out.addAll(custom.values());
    return out;
  }

  List<ResourceType> forGroupVersion(String group, String version) {
    return all().stream()
        .filter(t -> t.group().equals(group) && t.version().equals(version))
        .toList();
  }

  /** Every served group/version, including groups that only carry subresources (policy/v1). */
  Set<String> groupVersions() {
    Set<String> gvs = new TreeSet<>();
    all().forEach(t -> gvs.add(t.apiVersion()));
    gvs.addAll(BuiltinTypes.EXTRA_GROUP_VERSIONS);
    return gvs;
  }

  boolean servesGroupVersion(String group, String version) {
    return groupVersions().contains(group.isEmpty() ? version : group + "/" + version);
  }

  /** Rebuilds the custom part from all stored CRDs (called under the write lock). */
  void setCrds(Collection<ObjectNode> crds) {
    Map<String, ResourceType> next = new LinkedHashMap<>();
    for (ObjectNode crd : crds) {
      for (ResourceType t : fromCrd(crd)) {
        next.put(key(t.group(), t.version(), t.plural()), t);
      }
    }
    custom = Map.copyOf(next);
  }

  /** The resource types a CRD serves, one per served version. */
  static List<ResourceType> fromCrd(JsonNode crd) {
    JsonNode spec = crd.path("spec");
    String group = spec.path("group").asText();
    JsonNode names = spec.path("names");
    String kind = names.path("kind").asText();
    String plural = names.path("plural").asText();
    String singular = names.path("singular").asText(kind.toLowerCase(java.util.Locale.ROOT));
    if (singular.isEmpty()) {
      singular = kind.toLowerCase(java.util.Locale.ROOT);
    }
    boolean namespaced = !"Cluster".equals(spec.path("scope").asText());
    List<String> shortNames = strings(names.path("shortNames"));
    List<String> categories = strings(names.path("categories"));
    List<ResourceType> out = new ArrayList<>();
    for (JsonNode v : spec.path("versions")) {
      if (!v.path("served").asBoolean(true)) {
        continue;
      }
      JsonNode sub = v.path("subresources");
      ResourceType.Scale scale = null;
      if (sub.has("scale")) {
        JsonNode s = sub.get("scale");
        scale =
            new ResourceType.Scale(
                s.path("specReplicasPath").asText(".spec.replicas"),
                s.path("statusReplicasPath").asText(".status.replicas"),
                s.hasNonNull("labelSelectorPath") ? s.get("labelSelectorPath").asText() : null);
      }
      Set<String> fields = new HashSet<>();
      for (JsonNode f : v.path("selectableFields")) {
        String p = f.path("jsonPath").asText();
        fields.add(p.startsWith(".") ? p.substring(1) : p);
      }
      List<ResourceType.PrinterColumn> columns = new ArrayList<>();
      for (JsonNode c : v.path("additionalPrinterColumns")) {
        columns.add(
            new ResourceType.PrinterColumn(
                c.path("name").asText(),
                c.path("type").asText("string"),
                c.path("jsonPath").asText(),
                c.path("format").asText(""),
                c.path("priority").asInt(0)));
      }
      JsonNode schema = v.path("schema").path("openAPIV3Schema");
      out.add(
          new ResourceType(
              group,
              v.path("name").asText(),
              plural,
              singular,
              kind,
              namespaced,
              shortNames,
              categories,
              sub.has("status"),
              scale,
              Set.copyOf(fields),
              schema.isMissingNode() ? null : schema,
              true,
              true,
              false,
              false,
              List.copyOf(columns)));
    }
    return out;
  }

  private static List<String> strings(JsonNode arr) {
    List<String> out = new ArrayList<>();
    arr.forEach(n -> out.add(n.asText()));
    return List.copyOf(out);
  }
}
