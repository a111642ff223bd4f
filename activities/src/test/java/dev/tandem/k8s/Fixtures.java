package dev.tandem.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.k8s.api.NodeSet;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Test inputs: the example manifest from the repository and the CRD the build generated. */
public final class Fixtures {
  private Fixtures() {}

  /** The example users are pointed at; tests keep it valid. */
  public static final Path EXAMPLE = Path.of("..", "examples", "nodeset-gpu-a.yaml");

  public static GenericKubernetesResource exampleResource() {
    try (InputStream in = Files.newInputStream(EXAMPLE)) {
      return Json.SERIALIZATION.unmarshal(in, GenericKubernetesResource.class);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The example as a mutable JSON tree, with the metadata an API server would add. */
  public static ObjectNode example() {
    ObjectNode n = Json.MAPPER.valueToTree(exampleResource());
    ObjectNode meta = (ObjectNode) n.get("metadata");
    meta.put("namespace", "default");
    meta.put("uid", "0b5c7f5e-1111-4b7e-9a55-000000000001");
    meta.put("generation", 4);
    return n;
  }

  public static CustomResourceDefinition crd() {
    try (InputStream in = NodeSet.class.getResourceAsStream(NodeSet.CRD_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(
            NodeSet.CRD_RESOURCE + " is not on the classpath: the CRD generator did not run");
      }
      return Json.SERIALIZATION.unmarshal(in, CustomResourceDefinition.class);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code spec.versions[0].schema.openAPIV3Schema} as a JSON tree. */
  public static JsonNode openApiSchema() {
    return Json.MAPPER.valueToTree(
        crd().getSpec().getVersions().get(0).getSchema().getOpenAPIV3Schema());
  }

  /** Sets {@code value} at a dotted path below the root, creating objects on the way. */
  public static ObjectNode with(ObjectNode root, String path, JsonNode value) {
    ObjectNode cur = root;
    String[] parts = path.split("\\.");
    for (int i = 0; i < parts.length - 1; i++) {
      JsonNode next = cur.get(parts[i]);
      if (next == null || !next.isObject()) {
        next = cur.putObject(parts[i]);
      }
      cur = (ObjectNode) next;
    }
    if (value == null) {
      cur.remove(parts[parts.length - 1]);
    } else {
      cur.set(parts[parts.length - 1], value);
    }
    return root;
  }

  public static JsonNode json(String text) {
    try {
      return Json.MAPPER.readTree(text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** JSON pointers of every node below the root (objects, arrays and values). */
  public static java.util.List<String> paths(JsonNode root) {
    java.util.List<String> out = new java.util.ArrayList<>();
    collect(root, "", out);
    return out;
  }

  private static void collect(JsonNode n, String pointer, java.util.List<String> out) {
    if (n.isObject()) {
      n.fieldNames()
          .forEachRemaining(
              f -> {
                String p = pointer + "/" + f;
                out.add(p);
                collect(n.get(f), p, out);
              });
    } else if (n.isArray()) {
      for (int i = 0; i < n.size(); i++) {
        String p = pointer + "/" + i;
        out.add(p);
        collect(n.get(i), p, out);
      }
    }
  }

  /** Replaces the node at a JSON pointer (its parent must exist). */
  public static ObjectNode withPointer(ObjectNode root, String pointer, JsonNode value) {
    int slash = pointer.lastIndexOf('/');
    JsonNode parent = root.at(pointer.substring(0, slash));
    String last = pointer.substring(slash + 1);
    if (parent.isObject()) {
      ((ObjectNode) parent).set(last, value);
    } else if (parent.isArray()) {
      ((com.fasterxml.jackson.databind.node.ArrayNode) parent).set(Integer.parseInt(last), value);
    }
    return root;
  }
}
