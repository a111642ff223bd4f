package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * A deliberately small OpenAPI v3 stub: one document per group/version whose PATCH operations carry
 * {@code x-kubernetes-group-version-kind} and the {@code fieldValidation} query parameter. That
 * tells kubectl 1.32 the server validates fields itself, so {@code kubectl apply} works without
 * {@code --validate=false} and sends {@code fieldValidation=Strict}, which the local API enforces
 * for custom resources. The PATCH operations declare no request body on purpose: kubectl then
 * computes apply patches from its compiled-in types (strategic merge for built-ins) or as JSON
 * merge patches (custom resources), exactly what a real server would accept. There are no schemas,
 * so {@code kubectl explain} does not work. {@code /openapi/v2} answers 404 (kubectl falls back
 * cleanly).
 */
final class OpenApiDocs {
  private final ResourceCatalog catalog;

  OpenApiDocs(ResourceCatalog catalog) {
    this.catalog = catalog;
  }

  ObjectNode root() {
    ObjectNode root = Json.object();
    ObjectNode paths = root.putObject("paths");
    for (String gv : catalog.groupVersions()) {
      String key = gv.contains("/") ? "apis/" + gv : "api/" + gv;
      String hash = hash(Json.write(gvDoc(gv)));
      paths.putObject(key).put("serverRelativeURL", "/openapi/v3/" + key + "?hash=" + hash);
    }
    return root;
  }

  /** The document for {@code api/v1} or {@code apis/<g>/<v>}, or null if not served. */
  ObjectNode doc(String relative) {
    String gv;
    if (relative.startsWith("api/")) {
      gv = relative.substring(4);
    } else if (relative.startsWith("apis/")) {
      gv = relative.substring(5);
    } else {
      return null;
    }
    return catalog.groupVersions().contains(gv) ? gvDoc(gv) : null;
  }

  private ObjectNode gvDoc(String gv) {
    int slash = gv.indexOf('/');
    String group = slash < 0 ? "" : gv.substring(0, slash);
    String version = slash < 0 ? gv : gv.substring(slash + 1);
    ObjectNode doc = Json.object();
    doc.put("openapi", "3.0.0");
    doc.putObject("info")
        .put("title", "Kubernetes (Tandem local API)")
        .put("version", "v" + KubeVersion.DEFAULT + ".0");
    ObjectNode paths = doc.putObject("paths");
    for (ResourceType t : catalog.forGroupVersion(group, version)) {
      if (t.createOnly()) {
        continue;
      }
      String p =
          t.namespaced()
              ? t.collectionPath("{namespace}") + "/{name}"
              : t.collectionPath(null) + "/{name}";
      ObjectNode item = paths.putObject(p);
      ArrayNode params = item.putArray("parameters");
      params
          .addObject()
          .put("name", "name")
          .put("in", "path")
          .put("required", true)
          .putObject("schema")
          .put("type", "string");
      if (t.namespaced()) {
        params
            .addObject()
            .put("name", "namespace")
            .put("in", "path")
            .put("required", true)
            .putObject("schema")
            .put("type", "string");
      }
      ObjectNode patch = item.putObject("patch");
      patch.put("operationId", "patch" + t.kind());
      ArrayNode q = patch.putArray("parameters");
      for (String name : List.of("dryRun", "fieldManager", "fieldValidation", "force")) {
        q.addObject()
            .put("name", name)
            .put("in", "query")
            .put("required", false)
            .putObject("schema")
            .put("type", "string");
      }
      patch.put("x-kubernetes-action", "patch");
      patch
          .putObject("x-kubernetes-group-version-kind")
          .put("group", group)
          .put("version", version)
          .put("kind", t.kind());
      patch.putObject("responses").putObject("200").put("description", "OK");
    }
    doc.putObject("components").putObject("schemas");
    return doc;
  }

  private static String hash(String s) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-512").digest(s.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().withUpperCase().formatHex(d);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
