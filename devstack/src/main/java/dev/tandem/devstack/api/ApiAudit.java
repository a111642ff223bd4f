package dev.tandem.devstack.api;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Records which Kubernetes permissions Tandem's own clients use: every request whose User-Agent
 * starts with {@code tandem/} (what {@code KubeClients} sends) as one line {@code
 * verb<TAB>group<TAB>resource<TAB>subresource} in {@code <dir>/calls-<pid>.tsv}, each line once per
 * process. On only when {@code TANDEM_K8S_AUDIT_DIR} (environment) or {@code tandem.k8s.audit.dir}
 * (system property) names a directory; the build sets it for the ITs that run the worker, and the
 * chart's RBAC check compares the union of these files with the chart's rules.
 *
 * <p>The verb is the one a real API server's authorizer checks: {@code get}/{@code list}/{@code
 * watch} for reads (one object, a collection, {@code ?watch=true}), {@code create}, {@code update},
 * {@code patch}, {@code delete}/{@code deletecollection}. A request the server refuses is still
 * recorded: on a cluster it needs the permission before anything else is checked.
 */
final class ApiAudit {
  static final String ENV = "TANDEM_K8S_AUDIT_DIR";
  static final String PROPERTY = "tandem.k8s.audit.dir";

  private static final ApiAudit INSTANCE = new ApiAudit(configuredDir());

  private final Path file;
  private final Set<String> seen = ConcurrentHashMap.newKeySet();

  ApiAudit(Path dir) {
    this.file = dir == null ? null : dir.resolve("calls-" + ProcessHandle.current().pid() + ".tsv");
  }

  static ApiAudit get() {
    return INSTANCE;
  }

  private static Path configuredDir() {
    String d = System.getProperty(PROPERTY);
    if (d == null || d.isBlank()) {
      d = System.getenv(ENV);
    }
    return d == null || d.isBlank() ? null : Path.of(d);
  }

  /** Records {@code req} if it came from a Tandem client and is a resource request. */
  void record(ApiRequest req) {
    if (file == null
        || req.resource == null
        || req.userAgent == null
        || !req.userAgent.startsWith("tandem/")) {
      return;
    }
    String line =
        String.join(
            "\t",
            verb(req),
            req.group,
            req.resource,
            req.subresource == null ? "" : req.subresource);
    if (seen.add(line)) {
      append(line);
    }
  }

  /** The authorizer's verb for a request. */
  static String verb(ApiRequest req) {
    return switch (req.method) {
      case "GET", "HEAD" -> req.isWatch() ? "watch" : req.name == null ? "list" : "get";
      case "POST" -> "create";
      case "PUT" -> "update";
      case "PATCH" -> "patch";
      case "DELETE" -> req.name == null ? "deletecollection" : "delete";
      default -> req.method.toLowerCase(java.util.Locale.ROOT);
    };
  }

  private synchronized void append(String line) {
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(
          file,
          line + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the Kubernetes call audit " + file, e);
    }
  }
}
