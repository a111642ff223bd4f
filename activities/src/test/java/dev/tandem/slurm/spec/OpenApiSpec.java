package dev.tandem.slurm.spec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.JsonMetaSchema;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.NonValidationKeyword;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One slurmrestd OpenAPI document (as served at {@code /openapi/v3}) and JSON Schema validation
 * against its {@code components/schemas}. Test code, reusable by every adapter's tests (the
 * activities test-jar exports it).
 *
 * <p>OpenAPI 3.0 schema objects are validated as draft-07 with {@code $ref}s resolved inside the
 * document. Three adjustments make the official specs usable: Slurm writes nested requirements as
 * paths ({@code "required": ["error/code"]} on {@code kill_jobs_resp_job}), which a validator would
 * read as a property literally named {@code error/code}; those are moved to the nested object.
 * {@code deprecated} is dropped for the validator (it is not a draft-07 keyword) but kept for
 * {@link #unknownProperties}, which flags deprecated fields in requests. And the fields in {@link
 * #NULLABLE} also accept null, because the real server sends null there.
 *
 * <p>JSON Schema does not forbid extra properties unless told to, and these schemas never do;
 * slurmrestd, however, rejects unknown keys in requests. {@link #unknownProperties} closes that gap
 * by walking a document against the schema's {@code properties}.
 */
public final class OpenApiSpec {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Map<String, OpenApiSpec> CACHE = new ConcurrentHashMap<>();

  /**
   * Properties ({@code <schema without the version prefix>} → property) the real server sends as
   * null where the spec types an object. Slurm 25.11.7's slurmrestd writes {@code "job_resources":
   * null} for every job without an allocation in {@code GET /jobs/} and {@code GET /job/{id}}; the
   * specs type it as {@code job_res} (its data parser dumps a job without resources as null). Only
   * these accept null; every other field is checked as the spec says.
   */
  static final Map<String, String> NULLABLE = Map.of("job_info", "job_resources");

  private final String version;
  private final JsonNode document;
  private final JsonSchemaFactory factory;
  private final String iri;
  private final Map<String, JsonSchema> schemas = new ConcurrentHashMap<>();

  private OpenApiSpec(String version, JsonNode document) {
    this.version = version;
    this.document = document;
    this.iri = "https://tandem.dev/test/slurmrestd-openapi/" + version + ".json";
    String prepared = write(prepare(document));
    // Draft-07 plus "components" as a known, non-validating keyword: the container of the
    // schemas is not itself a schema.
    JsonMetaSchema meta =
        JsonMetaSchema.builder(JsonMetaSchema.getV7())
            .keyword(new NonValidationKeyword("components"))
            .build();
    this.factory =
        JsonSchemaFactory.getInstance(
            SpecVersion.VersionFlag.V7,
            b ->
                b.metaSchema(meta)
                    .defaultMetaSchemaIri(meta.getIri())
                    .schemaLoaders(l -> l.schemas(Map.of(iri, prepared))));
  }

  /**
   * The spec of {@code version} (e.g. {@code v0.0.44}) from the test classpath ({@code
   * /slurm/openapi/<version>.json}, copies of the official specs as SchedMD publishes them).
   */
  public static OpenApiSpec load(String version) {
    return CACHE.computeIfAbsent(version, OpenApiSpec::read);
  }

  private static OpenApiSpec read(String version) {
    String resource = "/slurm/openapi/" + version + ".json";
    try (InputStream in = OpenApiSpec.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalArgumentException("no OpenAPI spec on the classpath at " + resource);
      }
      return new OpenApiSpec(version, MAPPER.readTree(in));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + resource, e);
    }
  }

  public String version() {
    return version;
  }

  /** The document as published (unmodified). */
  public JsonNode document() {
    return document;
  }

  /** The schema object {@code components/schemas/<name>}; fails if the spec has no such schema. */
  public JsonNode schema(String name) {
    JsonNode s = document.path("components").path("schemas").get(name);
    if (s == null) {
      throw new IllegalArgumentException(version + " has no schema " + name);
    }
    return s;
  }

  /** JSON Schema violations of {@code doc} against {@code components/schemas/<name>}. */
  public List<String> schemaErrors(String name, JsonNode doc) {
    schema(name);
    JsonSchema s =
        schemas.computeIfAbsent(
            name, n -> factory.getSchema(SchemaLocation.of(iri + "#/components/schemas/" + n)));
    List<String> out = new ArrayList<>();
    for (ValidationMessage m : s.validate(doc)) {
      out.add(name + ": " + m.getMessage());
    }
    return out;
  }

  /**
   * Keys of {@code doc} that {@code components/schemas/<name>} does not define, recursively (and,
   * with {@code flagDeprecated}, keys the spec marks deprecated). Objects whose schema lists no
   * properties at all are not checked (nothing to compare against).
   */
  public List<String> unknownProperties(String name, JsonNode doc, boolean flagDeprecated) {
    List<String> out = new ArrayList<>();
    schema(name);
    JsonNode ref = MAPPER.createObjectNode().put("$ref", "#/components/schemas/" + name);
    walk(ref, doc, "$", flagDeprecated, out, 0);
    return out;
  }

  /**
   * Everything wrong with a request body: schema violations, unknown keys and deprecated keys.
   * Empty means slurmrestd's parser will find every key it is sent.
   */
  public List<String> requestBodyProblems(String name, JsonNode doc) {
    List<String> out = new ArrayList<>(schemaErrors(name, doc));
    out.addAll(unknownProperties(name, doc, true));
    return out;
  }

  /**
   * Everything wrong with a response fixture: schema violations and keys the spec does not know.
   */
  public List<String> responseProblems(String name, JsonNode doc) {
    List<String> out = new ArrayList<>(schemaErrors(name, doc));
    out.addAll(unknownProperties(name, doc, false));
    return out;
  }

  private void walk(
      JsonNode schema,
      JsonNode value,
      String path,
      boolean flagDeprecated,
      List<String> out,
      int d) {
    if (d > 64) {
      out.add(path + ": nesting deeper than 64 levels");
      return;
    }
    JsonNode s = resolve(schema);
    if (value.isObject()) {
      JsonNode props = s.path("properties");
      if (props.isEmpty()) {
        return;
      }
      for (Map.Entry<String, JsonNode> f : value.properties()) {
        String p = path + "." + f.getKey();
        JsonNode ps = props.get(f.getKey());
        if (ps == null) {
          out.add(p + ": not a property of " + refName(schema));
          continue;
        }
        if (flagDeprecated && ps.path("deprecated").asBoolean(false)) {
          out.add(p + ": deprecated in " + version);
        }
        walk(ps, f.getValue(), p, flagDeprecated, out, d + 1);
      }
    } else if (value.isArray() && s.has("items")) {
      int i = 0;
      for (JsonNode e : value) {
        walk(s.get("items"), e, path + "[" + i++ + "]", flagDeprecated, out, d + 1);
      }
    }
  }

  private static String refName(JsonNode schema) {
    String ref = schema.path("$ref").asText("");
    return ref.isEmpty() ? "its (inline) schema" : ref.substring(ref.lastIndexOf('/') + 1);
  }

  /** Follows {@code $ref}s (only local ones occur in these specs). */
  JsonNode resolve(JsonNode schema) {
    JsonNode s = schema;
    for (int i = 0; i < 32 && s.has("$ref"); i++) {
      String ref = s.get("$ref").asText();
      if (!ref.startsWith("#/")) {
        throw new IllegalArgumentException("non-local $ref " + ref);
      }
      s = document.at(ref.substring(1));
      if (s.isMissingNode()) {
        throw new IllegalArgumentException("dangling $ref " + ref + " in " + version);
      }
    }
    return s;
  }

  /** The validator's copy: components only, path-style requirements nested, no "deprecated". */
  private static JsonNode prepare(JsonNode document) {
    ObjectNode root = MAPPER.createObjectNode();
    JsonNode schemas = document.path("components").path("schemas").deepCopy();
    root.putObject("components").set("schemas", schemas);
    fix(schemas);
    allowNull(schemas);
    return root;
  }

  /** Each {@link #NULLABLE} property becomes {@code anyOf: [its schema, null]}. */
  private static void allowNull(JsonNode schemas) {
    for (Map.Entry<String, JsonNode> s : schemas.properties()) {
      String bare = s.getKey().substring(s.getKey().indexOf('_') + 1);
      String field = NULLABLE.get(bare);
      JsonNode props = s.getValue().path("properties");
      if (field != null && props.has(field)) {
        ObjectNode either = MAPPER.createObjectNode();
        ArrayNode any = either.putArray("anyOf");
        any.add(props.get(field));
        any.addObject().put("type", "null");
        ((ObjectNode) props).set(field, either);
      }
    }
  }

  private static void fix(JsonNode node) {
    if (node.isObject()) {
      ObjectNode o = (ObjectNode) node;
      o.remove("deprecated");
      JsonNode req = o.get("required");
      if (req != null && req.isArray()) {
        nestPathRequirements(o, (ArrayNode) req);
      }
      o.elements().forEachRemaining(OpenApiSpec::fix);
    } else if (node.isArray()) {
      node.elements().forEachRemaining(OpenApiSpec::fix);
    }
  }

  /** {@code required: ["error/code"]} becomes {@code required: ["error"]} plus code in error. */
  private static void nestPathRequirements(ObjectNode schema, ArrayNode required) {
    ArrayNode kept = MAPPER.createArrayNode();
    for (JsonNode r : required) {
      String name = r.asText();
      int slash = name.indexOf('/');
      if (slash < 0) {
        addOnce(kept, name);
        continue;
      }
      String head = name.substring(0, slash);
      String tail = name.substring(slash + 1);
      addOnce(kept, head);
      JsonNode prop = schema.path("properties").get(head);
      if (prop instanceof ObjectNode p && !p.has("$ref")) {
        JsonNode sub = p.get("required");
        ArrayNode subReq = sub instanceof ArrayNode a ? a : p.putArray("required");
        addOnce(subReq, tail);
        nestPathRequirements(p, subReq);
      }
    }
    schema.set("required", kept);
  }

  private static void addOnce(ArrayNode a, String v) {
    for (JsonNode e : a) {
      if (e.asText().equals(v)) {
        return;
      }
    }
    a.add(v);
  }

  private static String write(JsonNode n) {
    try {
      return MAPPER.writeValueAsString(n);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
