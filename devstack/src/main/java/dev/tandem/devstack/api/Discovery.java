package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The discovery documents kubectl and client libraries read first ({@code /version}, {@code /api},
 * {@code /apis}, {@code /api/v1}, {@code /apis/<group>[/<version>]}), built from the catalog so
 * CRDs registered at runtime appear with their subresources, short names and categories. The plain
 * mock answered these with a generic List, so kubectl failed at discovery.
 */
final class Discovery {
  private final ResourceCatalog catalog;

  /** The Kubernetes version the local API claims ({@link KubeVersion#DEFAULT} unless told). */
  private final KubeVersion kube;

  Discovery(ResourceCatalog catalog, KubeVersion kube) {
    this.catalog = catalog;
    this.kube = kube;
  }

  ObjectNode version() {
    ObjectNode v = Json.object();
    v.put("major", String.valueOf(kube.major()));
    v.put("minor", String.valueOf(kube.minor()));
    v.put("gitVersion", "v" + kube + ".0-tandem-local");
    v.put("gitCommit", "0000000000000000000000000000000000000000");
    v.put("gitTreeState", "clean");
    v.put("buildDate", "2025-01-01T00:00:00Z");
    v.put("goVersion", "none (fabric8 mock + Tandem compatibility layer)");
    v.put("compiler", "none");
    v.put("platform", "linux/amd64");
    return v;
  }

  ObjectNode coreVersions(String serverAddress) {
    ObjectNode v = Json.object();
    v.put("kind", "APIVersions");
    v.putArray("versions").add("v1");
    v.putArray("serverAddressByClientCIDRs")
        .addObject()
        .put("clientCIDR", "0.0.0.0/0")
        .put("serverAddress", serverAddress);
    return v;
  }

  ObjectNode groupList() {
    ObjectNode l = Json.object();
    l.put("kind", "APIGroupList");
    l.put("apiVersion", "v1");
    ArrayNode groups = l.putArray("groups");
    groupVersions().forEach((g, versions) -> groups.add(group(g, versions)));
    return l;
  }

  /** {@code /apis/<group>}, or null if the group is not served. */
  ObjectNode groupDoc(String group) {
    List<String> versions = groupVersions().get(group);
    if (versions == null) {
      return null;
    }
    ObjectNode g = group(group, versions);
    g.put("kind", "APIGroup");
    g.put("apiVersion", "v1");
    return g;
  }

  private static ObjectNode group(String name, List<String> versions) {
    ObjectNode g = Json.object();
    g.put("name", name);
    ArrayNode vs = g.putArray("versions");
    for (String v : versions) {
      vs.addObject().put("groupVersion", name + "/" + v).put("version", v);
    }
    g.putObject("preferredVersion")
        .put("groupVersion", name + "/" + versions.get(0))
        .put("version", versions.get(0));
    return g;
  }

  /** Non-core groups with their versions, preferred (GA over beta over alpha, newest) first. */
  private Map<String, List<String>> groupVersions() {
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (String gv : catalog.groupVersions()) {
      int slash = gv.indexOf('/');
      if (slash < 0) {
        continue;
      }
      out.computeIfAbsent(gv.substring(0, slash), k -> new ArrayList<>())
          .add(gv.substring(slash + 1));
    }
    out.values().forEach(l -> l.sort(VERSION_PRIORITY));
    return out;
  }

  private static final Pattern KUBE_VERSION = Pattern.compile("^v(\\d+)(?:(alpha|beta)(\\d+))?$");

  static final Comparator<String> VERSION_PRIORITY =
      (a, b) -> {
        int[] x = rank(a);
        int[] y = rank(b);
        for (int i = 0; i < 3; i++) {
          if (x[i] != y[i]) {
            return Integer.compare(y[i], x[i]);
          }
        }
        return a.compareTo(b);
      };

  private static int[] rank(String v) {
    Matcher m = KUBE_VERSION.matcher(v);
    if (!m.matches()) {
      return new int[] {-1, 0, 0};
    }
    int stability = m.group(2) == null ? 3 : m.group(2).equals("beta") ? 2 : 1;
    return new int[] {
      stability, Integer.parseInt(m.group(1)), m.group(3) == null ? 0 : Integer.parseInt(m.group(3))
    };
  }

  /** {@code /api/v1} or {@code /apis/<group>/<version>}, or null when not served. */
  ObjectNode resourceList(String group, String version) {
    if (!catalog.servesGroupVersion(group, version)) {
      return null;
    }
    ObjectNode l = Json.object();
    l.put("kind", "APIResourceList");
    l.put("apiVersion", "v1");
    l.put("groupVersion", group.isEmpty() ? version : group + "/" + version);
    ArrayNode rs = l.putArray("resources");
    for (ResourceType t : catalog.forGroupVersion(group, version)) {
      ObjectNode r = rs.addObject();
      r.put("name", t.plural());
      r.put("singularName", t.singular());
      r.put("namespaced", t.namespaced());
      r.put("kind", t.kind());
      ArrayNode verbs = r.putArray("verbs");
      t.verbs().forEach(verbs::add);
      if (!t.shortNames().isEmpty()) {
        ArrayNode sn = r.putArray("shortNames");
        t.shortNames().forEach(sn::add);
      }
      if (!t.categories().isEmpty()) {
        ArrayNode cs = r.putArray("categories");
        t.categories().forEach(cs::add);
      }
      if (t.statusSubresource()) {
        sub(rs, t, "status", null, null, t.kind(), List.of("get", "patch", "update"));
      }
      if (t.hasScale()) {
        sub(rs, t, "scale", "autoscaling", "v1", "Scale", List.of("get", "patch", "update"));
      }
      if (t.group().isEmpty() && t.kind().equals("Pod")) {
        sub(rs, t, "binding", null, null, "Binding", List.of("create"));
        sub(rs, t, "eviction", "policy", "v1", "Eviction", List.of("create"));
        sub(rs, t, "log", null, null, "Pod", List.of("get"));
      }
    }
    return l;
  }

  private static void sub(
      ArrayNode rs,
      ResourceType t,
      String name,
      String group,
      String version,
      String kind,
      List<String> verbs) {
    ObjectNode r = rs.addObject();
    r.put("name", t.plural() + "/" + name);
    r.put("singularName", "");
    r.put("namespaced", t.namespaced());
    if (group != null) {
      r.put("group", group);
      r.put("version", version);
    }
    r.put("kind", kind);
    ArrayNode vs = r.putArray("verbs");
    verbs.forEach(vs::add);
  }
}
