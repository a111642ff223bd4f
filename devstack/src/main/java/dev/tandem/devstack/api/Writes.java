package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.devstack.api.ApiException.Cause;
import dev.tandem.devstack.api.Store.Stored;
import io.fabric8.mockwebserver.http.MockResponse;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Create, update (PUT) and patch with the API server's rules: server-owned metadata, defaults,
 * validation (422), optimistic concurrency on every path incl. {@code /status} (409), status
 * subresource isolation, generation bumps on spec changes only, no-op writes that change nothing,
 * {@code dryRun=All}, and field managers.
 */
final class Writes {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final String GENERATE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

  private final Store store;
  private final ResourceCatalog catalog;
  private final KubeVersion version;
  private Deletes deletes;

  Writes(Store store, ResourceCatalog catalog, KubeVersion version) {
    this.store = store;
    this.catalog = catalog;
    this.version = version;
  }

  void setDeletes(Deletes deletes) {
    this.deletes = deletes;
  }

  MockResponse create(ResourceType t, ApiRequest req) {
    String manager = ManagedFields.manager(req);
    ObjectNode obj = Json.parseObject(req.body);
    checkKind(t, obj);
    ObjectNode meta = Json.meta(obj);
    if (t.namespaced()) {
      if (req.namespace == null) {
        throw ApiException.methodNotAllowed(
            "create " + t.qualifiedResource() + " needs a namespace in the URL");
      }
      String bodyNs = Json.text(meta, "namespace");
      if (bodyNs != null && !bodyNs.isEmpty() && !bodyNs.equals(req.namespace)) {
        throw ApiException.badRequest(
            "the namespace of the provided object does not match the namespace sent on the request");
      }
      meta.put("namespace", req.namespace);
      requireNamespace(req.namespace);
    } else {
      meta.remove("namespace");
    }
    String name = Json.text(meta, "name");
    if (name == null || name.isEmpty()) {
      String gen = Json.text(meta, "generateName");
      if (gen == null || gen.isEmpty()) {
        throw ApiException.invalid(
            t,
            null,
            List.of(
                new Cause(
                    "metadata.name",
                    "FieldValueRequired",
                    "Required value: name or generateName is required")));
      }
      name = gen + randomSuffix();
      meta.put("name", name);
    }
    String rv = Json.text(meta, "resourceVersion");
    if (rv != null && !rv.isEmpty()) {
      // What a real API server answers (as a 500) when a client creates a fetched object.
      throw new ApiException(
          500,
          "InternalError",
          "resourceVersion should not be set on objects to be created",
          null,
          null,
          null,
          null);
    }
    if (store.get(t, req.namespace, name) != null) {
      throw ApiException.alreadyExists(t, name);
    }
    meta.put("uid", UUID.randomUUID().toString());
    meta.put("creationTimestamp", Json.now());
    meta.remove(
        List.of("deletionTimestamp", "deletionGracePeriodSeconds", "managedFields", "selfLink"));
    if (t.tracksGeneration()) {
      meta.put("generation", 1);
    } else {
      meta.remove("generation");
    }
    ObjectRules.defaults(t, obj, true);
    if (t.custom() && t.statusSubresource()) {
      obj.remove("status");
    }
    if (t.kind().equals("CustomResourceDefinition")) {
      CrdRules.status(obj);
    }
    List<Cause> errors = new ArrayList<>();
    ObjectRules.validateMetadata(t, obj, errors);
    ObjectRules.validateCreate(t, obj, errors);
    List<String> warnings = admit(t, obj, errors, req);
    if (!errors.isEmpty()) {
      throw ApiException.invalid(t, name, errors);
    }
    ManagedFields.record(null, obj, manager, t.apiVersion(), null);
    if (!req.dryRun()) {
      store.create(t, obj);
    }
    return Responses.withWarnings(Responses.json(201, obj), warnings);
  }

  MockResponse update(ResourceType t, ApiRequest req) {
    Stored cur = store.require(t, req);
    ObjectNode incoming = Json.parseObject(req.body);
    checkKind(t, incoming);
    checkIdentity(t, cur, incoming);
    checkPrecondition(t, cur, Json.text(incoming, "metadata", "resourceVersion"));
    checkUid(t, cur, incoming);
    return commit(t, cur, compose(t, cur.obj(), incoming, req.subresource), req);
  }

  MockResponse patch(ResourceType t, ApiRequest req) {
    Stored cur = store.require(t, req);
    ObjectNode patched = Patches.apply(t, cur.obj(), req, t.kind());
    checkIdentity(t, cur, patched);
    checkPrecondition(t, cur, Json.text(patched, "metadata", "resourceVersion"));
    checkUid(t, cur, patched);
    return commit(t, cur, compose(t, cur.obj(), patched, req.subresource), req);
  }

  /** The common tail of every change to an existing object. */
  MockResponse commit(ResourceType t, Stored cur, ObjectNode next, ApiRequest req) {
    String manager = ManagedFields.manager(req);
    keepServerMetadata(cur.obj(), next);
    next.put("kind", t.kind());
    next.put("apiVersion", t.apiVersion());
    ObjectRules.defaults(t, next, false);
    List<Cause> errors = new ArrayList<>();
    ObjectRules.validateMetadata(t, next, errors);
    if (t.group().isEmpty() && t.kind().equals("Pod") && req.subresource == null) {
      ObjectRules.validatePodUpdate(cur.obj(), next, errors);
    }
    List<String> warnings = admit(t, next, errors, req);
    if (!errors.isEmpty()) {
      throw ApiException.invalid(t, cur.name(), errors);
    }
    if (Deletes.finalizersDone(t, next)) {
      // The last finalizer went away from an object being deleted: it goes now.
      return Responses.json(200, req.dryRun() ? next : deletes.removeNow(t, cur, next));
    }
    if (next.equals(cur.obj())) {
      return Responses.withWarnings(Responses.json(200, cur.obj()), warnings);
    }
    if (t.tracksGeneration() && specChanged(t, cur.obj(), next)) {
      Json.meta(next).put("generation", Json.meta(cur.obj()).path("generation").asLong(0) + 1);
    }
    ManagedFields.record(cur.obj(), next, manager, t.apiVersion(), req.subresource);
    if (!req.dryRun()) {
      store.update(t, cur, next);
    }
    return Responses.withWarnings(Responses.json(200, next), warnings);
  }

  /**
   * {@code fieldValidation}: a CR against its CRD's schema; a pod (main resource) against the Pod
   * schema of the emulated version ({@link PodFields}). Other built-ins keep unknown fields.
   */
  private List<String> admit(ResourceType t, ObjectNode obj, List<Cause> errors, ApiRequest req) {
    if (t.group().isEmpty() && t.kind().equals("Pod") && req.subresource == null) {
      return PodFields.admit(obj, req, version);
    }
    return CrSchema.admit(t, obj, errors, req);
  }

  /** Main resource vs status subresource: each write only touches its own part. */
  static ObjectNode compose(ResourceType t, ObjectNode cur, ObjectNode incoming, String sub) {
    if ("status".equals(sub)) {
      ObjectNode r = cur.deepCopy();
      setOrRemove(r, "status", incoming.get("status"));
      return r;
    }
    ObjectNode r = incoming.deepCopy();
    if (t.statusSubresource()) {
      setOrRemove(r, "status", cur.get("status"));
    }
    return r;
  }

  static boolean specChanged(ResourceType t, ObjectNode a, ObjectNode b) {
    ObjectNode x = a.deepCopy();
    ObjectNode y = b.deepCopy();
    x.remove("metadata");
    y.remove("metadata");
    if (t.statusSubresource()) {
      x.remove("status");
      y.remove("status");
    }
    return !x.equals(y);
  }

  private static void setOrRemove(ObjectNode o, String k, JsonNode v) {
    if (v == null || v.isNull()) {
      o.remove(k);
    } else {
      o.set(k, v.deepCopy());
    }
  }

  /** Server-owned metadata cannot be changed by a client write. */
  private static void keepServerMetadata(ObjectNode cur, ObjectNode next) {
    ObjectNode from = Json.meta(cur);
    ObjectNode to = Json.meta(next);
    for (String k :
        List.of(
            "name",
            "namespace",
            "uid",
            "creationTimestamp",
            "resourceVersion",
            "generation",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
            "managedFields")) {
      setOrRemove(to, k, from.get(k));
    }
  }

  void requireNamespace(String ns) {
    Stored n = store.get(catalog.require("", "v1", "namespaces"), null, ns);
    if (n == null) {
      throw ApiException.notFound(catalog.require("", "v1", "namespaces"), ns);
    }
    if (Json.text(n.obj(), "metadata", "deletionTimestamp") != null) {
      throw ApiException.forbidden(
          "unable to create new content in namespace " + ns + " because it is being terminated");
    }
  }

  private static void checkKind(ResourceType t, ObjectNode obj) {
    String kind = Json.text(obj, "kind");
    String apiVersion = Json.text(obj, "apiVersion");
    if (kind != null && !kind.isEmpty() && !kind.equals(t.kind())) {
      throw ApiException.badRequest(
          "the kind in the body ("
              + kind
              + ") does not match "
              + t.qualifiedResource()
              + " ("
              + t.kind()
              + ")");
    }
    if (apiVersion != null && !apiVersion.isEmpty() && !apiVersion.equals(t.apiVersion())) {
      throw ApiException.badRequest(
          "the API version in the data ("
              + apiVersion
              + ") does not match the expected API version ("
              + t.apiVersion()
              + ")");
    }
    obj.put("kind", t.kind());
    obj.put("apiVersion", t.apiVersion());
  }

  private static void checkIdentity(ResourceType t, Stored cur, ObjectNode next) {
    String name = Json.text(next, "metadata", "name");
    if (name != null && !name.isEmpty() && !name.equals(cur.name())) {
      throw ApiException.badRequest(
          "the name of the object ("
              + name
              + ") does not match the name on the URL ("
              + cur.name()
              + ")");
    }
    String ns = Json.text(next, "metadata", "namespace");
    if (t.namespaced() && ns != null && !ns.isEmpty() && !ns.equals(cur.namespace())) {
      throw ApiException.badRequest(
          "the namespace of the object ("
              + ns
              + ") does not match the namespace on the URL ("
              + cur.namespace()
              + ")");
    }
  }

  /**
   * A uid in the written object must be the stored one's: kube-apiserver's update validation
   * (ValidateObjectMetaUpdate) answers 422 {@code metadata.uid: ... field is immutable}, after the
   * resourceVersion check (409 first). None sent: the stored one is kept. The kubelet's status
   * patches, and Tandem's condition at bind, carry the pod's uid for exactly this: a pod recreated
   * under the same name is never written by mistake.
   */
  private static void checkUid(ResourceType t, Stored cur, ObjectNode next) {
    String uid = Json.text(next, "metadata", "uid");
    String have = Json.text(cur.obj(), "metadata", "uid");
    if (uid != null && !uid.isEmpty() && have != null && !uid.equals(have)) {
      throw ApiException.invalid(
          t,
          cur.name(),
          List.of(
              ApiException.Cause.invalid(
                  "metadata.uid", "Invalid value: " + Json.quote(uid) + ": field is immutable")));
    }
  }

  static void checkPrecondition(ResourceType t, Stored cur, String rv) {
    if (rv != null && !rv.isEmpty() && !rv.equals(cur.resourceVersion())) {
      throw ApiException.staleResourceVersion(t, cur.name());
    }
  }

  private static String randomSuffix() {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 5; i++) {
      b.append(GENERATE_ALPHABET.charAt(RANDOM.nextInt(GENERATE_ALPHABET.length())));
    }
    return b.toString();
  }
}
