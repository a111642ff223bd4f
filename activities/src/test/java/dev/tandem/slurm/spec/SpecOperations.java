package dev.tandem.slurm.spec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tandem.slurm.SlurmTransport.Request;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The operations ({@code paths}) of an {@link OpenApiSpec}: which one a concrete request hits,
 * whether its query parameters and body are what the spec declares, and which schema its answer
 * has.
 *
 * <p>One deliberate deviation: the spec declares {@code flags} with {@code explode: false} (a comma
 * list), but a real 25.11 answers a comma list with a text 500 and needs the parameter repeated. So
 * a repeated query parameter is accepted here and each value is checked on its own.
 */
public final class SpecOperations {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final OpenApiSpec spec;
  private final List<Operation> operations = new ArrayList<>();

  /** One method on one path template. */
  public record Operation(String method, String template, Pattern pattern, JsonNode node) {
    int templateParams() {
      return template.split("\\{", -1).length - 1;
    }

    /** The request body schema name, or empty when the operation takes no body. */
    public Optional<String> requestSchema() {
      return schemaName(node.path("requestBody").path("content"));
    }

    /** The response schema for {@code status} (falling back to {@code default}). */
    public Optional<String> responseSchema(int status) {
      JsonNode responses = node.path("responses");
      JsonNode r = responses.has(Integer.toString(status)) ? responses.get("" + status) : null;
      if (r == null) {
        r = responses.path("default");
      }
      return schemaName(r.path("content"));
    }

    private static Optional<String> schemaName(JsonNode content) {
      String ref = content.path("application/json").path("schema").path("$ref").asText("");
      return ref.isEmpty()
          ? Optional.empty()
          : Optional.of(ref.substring(ref.lastIndexOf('/') + 1));
    }
  }

  public SpecOperations(OpenApiSpec spec) {
    this.spec = spec;
    for (Map.Entry<String, JsonNode> p : spec.document().path("paths").properties()) {
      Pattern pattern = Pattern.compile(toRegex(p.getKey()));
      for (Map.Entry<String, JsonNode> op : p.getValue().properties()) {
        operations.add(
            new Operation(
                op.getKey().toUpperCase(Locale.ROOT), p.getKey(), pattern, op.getValue()));
      }
    }
    // Literal paths win over templates: /job/submit is not /job/{job_id}.
    operations.sort(Comparator.comparingInt(Operation::templateParams));
  }

  public OpenApiSpec spec() {
    return spec;
  }

  /** The operation a request hits, if the spec has one. */
  public Optional<Operation> find(String method, String path) {
    for (Operation o : operations) {
      if (o.method().equals(method) && o.pattern().matcher(path).matches()) {
        return Optional.of(o);
      }
    }
    return Optional.empty();
  }

  /**
   * Everything the spec says is wrong with a request: unknown operation, undeclared query
   * parameter, value outside a parameter's enum, missing/unexpected body, and every body problem of
   * {@link OpenApiSpec#requestBodyProblems}.
   */
  public List<String> requestProblems(Request r) {
    List<String> out = new ArrayList<>();
    Optional<Operation> found = find(r.method(), r.path());
    if (found.isEmpty()) {
      out.add(r.method() + " " + r.path() + ": no such operation in " + spec.version());
      return out;
    }
    Operation op = found.get();
    String where = op.method() + " " + op.template();
    for (Map.Entry<String, List<String>> q : r.query().entrySet()) {
      JsonNode param = queryParam(op, q.getKey());
      if (param == null) {
        out.add(where + ": query parameter '" + q.getKey() + "' is not declared");
        continue;
      }
      if (param.path("deprecated").asBoolean(false) && !op.node().path("deprecated").asBoolean()) {
        out.add(where + ": query parameter '" + q.getKey() + "' is deprecated");
      }
      JsonNode en = param.path("schema").path("enum");
      for (String v : q.getValue()) {
        if (en.isArray() && !contains(en, v)) {
          out.add(where + ": " + q.getKey() + "=" + v + " is not one of " + en);
        }
      }
    }
    Optional<String> schema = op.requestSchema();
    if (schema.isPresent() && r.jsonBody() == null) {
      out.add(where + ": a " + schema.get() + " body is expected");
    } else if (schema.isEmpty() && r.jsonBody() != null) {
      out.add(where + ": takes no body");
    } else if (schema.isPresent()) {
      out.addAll(spec.requestBodyProblems(schema.get(), parse(r.jsonBody())));
    }
    return out;
  }

  /** Problems of a response body for a request and status (schema of that status or default). */
  public List<String> responseProblems(Request r, int status, String body) {
    Operation op =
        find(r.method(), r.path())
            .orElseThrow(() -> new IllegalArgumentException("no operation for " + r.path()));
    String schema =
        op.responseSchema(status)
            .orElseThrow(() -> new IllegalArgumentException("no response schema " + status));
    return spec.responseProblems(schema, parse(body));
  }

  private static JsonNode queryParam(Operation op, String name) {
    for (JsonNode p : op.node().path("parameters")) {
      if ("query".equals(p.path("in").asText()) && name.equals(p.path("name").asText())) {
        return p;
      }
    }
    return null;
  }

  private static boolean contains(JsonNode array, String v) {
    for (JsonNode e : array) {
      if (e.asText().equals(v)) {
        return true;
      }
    }
    return false;
  }

  private static String toRegex(String template) {
    StringBuilder sb = new StringBuilder();
    for (String part : template.split("(?=\\{)|(?<=\\})")) {
      sb.append(part.startsWith("{") ? "[^/]+" : Pattern.quote(part));
    }
    return sb.toString();
  }

  /** Parses JSON text; fails with the text in the message. */
  public static JsonNode parse(String json) {
    try {
      return MAPPER.readTree(json);
    } catch (IOException e) {
      throw new IllegalArgumentException("not JSON: " + json, e);
    }
  }
}
