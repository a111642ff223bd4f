package dev.tandem.devstack.kube;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The permissions Tandem's own clients used on a control plane, from its API server's audit log:
 * every event whose user agent starts with {@code tandem/} (what {@code KubeClients} sends) as one
 * line {@code verb<TAB>group<TAB>resource<TAB>subresource}, the verb the authorizer checked. A
 * request the server refused counts: on a cluster it needs the permission first. Written when the
 * plane stops, to {@code <dir>/calls-<pid>-<port>.tsv} when {@code TANDEM_K8S_AUDIT_DIR}
 * (environment) or {@code tandem.k8s.audit.dir} (system property) names a directory; the chart's
 * RBAC check ({@code ChartRbacIT}) compares the union of these files with the chart's rules.
 */
final class TandemCalls {
  static final String ENV = "TANDEM_K8S_AUDIT_DIR";
  static final String PROPERTY = "tandem.k8s.audit.dir";

  private static final ObjectMapper JSON = new ObjectMapper();

  private TandemCalls() {}

  /** Writes the calls found in {@code auditLog} and its rotated backups, if a directory is set. */
  static void export(Path auditLog, int port) throws IOException {
    Path dir = configuredDir();
    if (dir == null || !Files.exists(auditLog)) {
      return;
    }
    Set<String> calls = new TreeSet<>();
    String name = auditLog.getFileName().toString().replace(".log", "");
    try (Stream<Path> files = Files.list(auditLog.getParent())) {
      for (Path f : files.filter(p -> isLog(p, name)).toList()) {
        read(f, calls);
      }
    }
    if (!calls.isEmpty()) {
      Files.createDirectories(dir);
      Path out = dir.resolve("calls-" + ProcessHandle.current().pid() + "-" + port + ".tsv");
      Files.write(out, calls, StandardCharsets.UTF_8);
    }
  }

  private static boolean isLog(Path p, String name) {
    String f = p.getFileName().toString();
    return f.startsWith(name) && f.endsWith(".log");
  }

  private static void read(Path file, Set<String> calls) throws IOException {
    try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      for (String line; (line = in.readLine()) != null; ) {
        if (!line.contains("\"tandem/")) {
          continue;
        }
        JsonNode e = JSON.readTree(line);
        JsonNode ref = e.path("objectRef");
        if (!e.path("userAgent").asText().startsWith("tandem/")
            || ref.path("resource").isMissingNode()) {
          continue;
        }
        calls.add(
            String.join(
                "\t",
                e.path("verb").asText(),
                ref.path("apiGroup").asText(""),
                ref.path("resource").asText(),
                ref.path("subresource").asText("")));
      }
    }
  }

  private static Path configuredDir() {
    String d = System.getProperty(PROPERTY);
    if (d == null || d.isBlank()) {
      d = System.getenv(ENV);
    }
    return d == null || d.isBlank() ? null : Path.of(d);
  }
}
