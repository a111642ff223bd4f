package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A refusal, rendered as the {@code Status} object a real API server sends (same code, reason and
 * message shapes), so that clients take the same error paths here as on a cluster.
 */
final class ApiException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** One invalid field: {@code field} is dotted ({@code spec.replicas}). */
  record Cause(String field, String reason, String message) {
    static Cause required(String field) {
      return new Cause(field, "FieldValueRequired", "Required value");
    }

    static Cause invalid(String field, String detail) {
      return new Cause(field, "FieldValueInvalid", detail);
    }

    static Cause forbidden(String field, String detail) {
      return new Cause(field, "FieldValueForbidden", "Forbidden: " + detail);
    }

    String render() {
      return field + ": " + message;
    }
  }

  final int code;
  final String reason;
  final String name;
  final String group;
  final String kind;
  final List<Cause> causes;

  ApiException(
      int code,
      String reason,
      String message,
      String name,
      String group,
      String kind,
      List<Cause> causes) {
    super(message);
    this.code = code;
    this.reason = reason;
    this.name = name;
    this.group = group;
    this.kind = kind;
    this.causes = causes == null ? List.of() : List.copyOf(causes);
  }

  static ApiException notFound(ResourceType t, String name) {
    return new ApiException(
        404,
        "NotFound",
        t.qualifiedResource() + " " + Json.quote(name) + " not found",
        name,
        t.group(),
        t.plural(),
        null);
  }

  static ApiException noSuchResource(String detail) {
    return new ApiException(
        404,
        "NotFound",
        "the server could not find the requested resource (" + detail + ")",
        null,
        null,
        null,
        null);
  }

  static ApiException alreadyExists(ResourceType t, String name) {
    return new ApiException(
        409,
        "AlreadyExists",
        t.qualifiedResource() + " " + Json.quote(name) + " already exists",
        name,
        t.group(),
        t.plural(),
        null);
  }

  static ApiException conflict(ResourceType t, String name, String why) {
    return new ApiException(
        409,
        "Conflict",
        "Operation cannot be fulfilled on "
            + t.qualifiedResource()
            + " "
            + Json.quote(name)
            + ": "
            + why,
        name,
        t.group(),
        t.plural(),
        null);
  }

  static ApiException staleResourceVersion(ResourceType t, String name) {
    return conflict(
        t,
        name,
        "the object has been modified; please apply your changes to the latest version and try"
            + " again");
  }

  static ApiException invalid(ResourceType t, String name, List<Cause> causes) {
    String list =
        causes.size() == 1
            ? causes.get(0).render()
            : causes.stream().map(Cause::render).collect(Collectors.joining(", ", "[", "]"));
    return new ApiException(
        422,
        "Invalid",
        t.qualifiedKind() + " " + Json.quote(name == null ? "" : name) + " is invalid: " + list,
        name,
        t.group(),
        t.kind(),
        causes);
  }

  /** 429 as the eviction subresource sends it when a disruption budget forbids the eviction. */
  static ApiException tooManyRequests(String message, List<Cause> causes) {
    return new ApiException(429, "TooManyRequests", message, null, null, null, causes);
  }

  static ApiException internal(String message) {
    return new ApiException(500, "InternalError", message, null, null, null, null);
  }

  static ApiException badRequest(String message) {
    return new ApiException(400, "BadRequest", message, null, null, null, null);
  }

  static ApiException forbidden(String message) {
    return new ApiException(403, "Forbidden", message, null, null, null, null);
  }

  static ApiException methodNotAllowed(String message) {
    return new ApiException(405, "MethodNotAllowed", message, null, null, null, null);
  }

  static ApiException unsupportedMediaType(String message) {
    return new ApiException(415, "UnsupportedMediaType", message, null, null, null, null);
  }

  ObjectNode toStatus() {
    ObjectNode s = Json.object();
    s.put("kind", "Status");
    s.put("apiVersion", "v1");
    s.putObject("metadata");
    s.put("status", "Failure");
    s.put("message", getMessage());
    s.put("reason", reason);
    if (name != null || kind != null || !causes.isEmpty()) {
      ObjectNode d = s.putObject("details");
      if (name != null) {
        d.put("name", name);
      }
      if (group != null && !group.isEmpty()) {
        d.put("group", group);
      }
      if (kind != null) {
        d.put("kind", kind);
      }
      if (!causes.isEmpty()) {
        ArrayNode cs = d.putArray("causes");
        for (Cause c : causes) {
          ObjectNode o = cs.addObject().put("reason", c.reason()).put("message", c.message());
          if (c.field() != null) {
            o.put("field", c.field());
          }
        }
      }
    }
    s.put("code", code);
    return s;
  }

  static ObjectNode success(int code) {
    ObjectNode s = Json.object();
    s.put("kind", "Status");
    s.put("apiVersion", "v1");
    s.putObject("metadata");
    s.put("status", "Success");
    s.put("code", code);
    return s;
  }
}
