package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.devstack.api.ApiException.Cause;
import java.util.ArrayList;
import java.util.List;

/**
 * Parsed {@code DeleteOptions} (the request body, else the query), validated as the API server's
 * {@code ValidateDeleteOptions} does: {@code propagationPolicy} is one of Foreground, Background,
 * Orphan, and the legacy {@code orphanDependents} cannot be combined with it (422 either way).
 *
 * @param propagation the explicit {@code propagationPolicy}, or null
 * @param orphanDependents the legacy flag, or null when not sent
 */
record DeleteOptions(
    Long gracePeriodSeconds,
    String propagation,
    Boolean orphanDependents,
    String uid,
    String resourceVersion,
    boolean dryRun) {
  static final String FOREGROUND = "Foreground";
  static final String BACKGROUND = "Background";
  static final String ORPHAN = "Orphan";

  static final DeleteOptions DEFAULT = new DeleteOptions(null, null, null, null, null, false);

  /** What the garbage collector sends: a policy and the object's uid as precondition. */
  static DeleteOptions gc(String propagation, String uid) {
    return new DeleteOptions(null, propagation, null, uid, null, false);
  }

  static DeleteOptions from(ApiRequest req) {
    if (req.body != null && !req.body.isBlank()) {
      return from(Json.parse(req.body), req);
    }
    Long grace =
        req.param("gracePeriodSeconds") == null
            ? null
            : parseGrace(req.param("gracePeriodSeconds"));
    return validated(
        new DeleteOptions(
            grace,
            req.param("propagationPolicy"),
            parseBool(req.param("orphanDependents")),
            null,
            null,
            false));
  }

  static DeleteOptions from(JsonNode b, ApiRequest req) {
    Long grace = null;
    if (b.hasNonNull("gracePeriodSeconds")) {
      grace = b.get("gracePeriodSeconds").asLong();
    } else if (req != null && req.param("gracePeriodSeconds") != null) {
      grace = parseGrace(req.param("gracePeriodSeconds"));
    }
    String propagation =
        b.hasNonNull("propagationPolicy") ? b.get("propagationPolicy").asText() : null;
    Boolean orphan =
        b.hasNonNull("orphanDependents") ? b.get("orphanDependents").asBoolean() : null;
    if (propagation == null && orphan == null && req != null) {
      propagation = req.param("propagationPolicy");
      orphan = parseBool(req.param("orphanDependents"));
    }
    JsonNode pre = b.path("preconditions");
    boolean dryRun = false;
    for (JsonNode d : b.path("dryRun")) {
      if (!"All".equals(d.asText())) {
        throw ApiException.badRequest(
            "dryRun: Unsupported value: " + d + ": supported values: \"All\"");
      }
      dryRun = true;
    }
    return validated(
        new DeleteOptions(
            grace,
            propagation,
            orphan,
            pre.path("uid").asText(null),
            pre.path("resourceVersion").asText(null),
            dryRun));
  }

  private static DeleteOptions validated(DeleteOptions o) {
    List<Cause> errors = new ArrayList<>();
    if (o.orphanDependents != null && o.propagation != null) {
      errors.add(
          Cause.invalid(
              "propagationPolicy",
              "Invalid value: "
                  + Json.quote(o.propagation)
                  + ": orphanDependents and deletionPropagation cannot be both set"));
    }
    if (o.propagation != null && !List.of(FOREGROUND, BACKGROUND, ORPHAN).contains(o.propagation)) {
      errors.add(
          new Cause(
              "propagationPolicy",
              "FieldValueNotSupported",
              "Unsupported value: "
                  + Json.quote(o.propagation)
                  + ": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\""));
    }
    if (!errors.isEmpty()) {
      String list =
          errors.size() == 1
              ? errors.get(0).render()
              : errors.stream().map(Cause::render).toList().toString();
      throw new ApiException(
          422,
          "Invalid",
          "DeleteOptions.meta.k8s.io \"\" is invalid: " + list,
          "",
          "meta.k8s.io",
          "DeleteOptions",
          errors);
    }
    return o;
  }

  /**
   * Whether the object gets the {@code orphan} finalizer: the options first, then the finalizers it
   * already carries, then the type's default (Background for every type served here), as the API
   * server's {@code shouldOrphanDependents}.
   */
  boolean orphans(List<String> finalizers) {
    if (orphanDependents != null) {
      return orphanDependents;
    }
    if (propagation != null) {
      return ORPHAN.equals(propagation);
    }
    for (String f : finalizers) {
      if (Deletes.ORPHAN_FINALIZER.equals(f)) {
        return true;
      }
      if (Deletes.FOREGROUND_FINALIZER.equals(f)) {
        return false;
      }
    }
    return false;
  }

  /** Whether the object gets {@code foregroundDeletion} ({@code shouldDeleteDependents}). */
  boolean foreground(List<String> finalizers) {
    if (orphanDependents != null) {
      return false;
    }
    if (propagation != null) {
      return FOREGROUND.equals(propagation);
    }
    return finalizers.contains(Deletes.FOREGROUND_FINALIZER);
  }

  private static Long parseGrace(String s) {
    try {
      return Long.parseLong(s);
    } catch (NumberFormatException e) {
      throw ApiException.badRequest("gracePeriodSeconds: Invalid value: " + Json.quote(s));
    }
  }

  private static Boolean parseBool(String s) {
    if (s == null) {
      return null;
    }
    if (s.equalsIgnoreCase("true") || s.equals("1")) {
      return true;
    }
    if (s.equalsIgnoreCase("false") || s.equals("0")) {
      return false;
    }
    throw ApiException.badRequest("orphanDependents: Invalid value: " + Json.quote(s));
  }
}
