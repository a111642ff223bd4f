package dev.tandem.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.marcnuri.helm.Helm;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;

/**
 * The worker of the end-to-end tests runs as a cluster's worker does: under the ServiceAccount of
 * {@code helm/tandem}, with only the RBAC the chart grants. The chart is rendered with helm-java
 * (release {@code tandem} in namespace {@code default}, the worker's namespace in the dev stack,
 * with the least values a user sets), its ServiceAccount, ClusterRole, Role and their bindings are
 * applied, and the worker gets a kubeconfig with a token of that ServiceAccount. A call the chart
 * does not grant is a 403 from the real authorizer, and the calls are in the audit log the chart's
 * RBAC check reads. The chart's Deployment and the rest are not applied: the dev stack starts the
 * worker itself.
 */
final class ChartIdentity {
  static final String NAMESPACE = "default";
  static final String SERVICE_ACCOUNT = "tandem";
  private static final Set<String> RBAC_KINDS =
      Set.of("ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding");

  private static final ObjectMapper JSON = new ObjectMapper();

  private ChartIdentity() {}

  /** The chart's RBAC objects, as {@code helm template} renders them. */
  static List<HasMetadata> rbac() {
    Path chart = repositoryRoot().resolve("helm/tandem");
    String rendered =
        new Helm(chart)
            .template()
            .withName("tandem")
            .withNamespace(NAMESPACE)
            .withKubeVersion("1.37.2") // the plane's release; helm template assumes 1.20
            .withValuesFile(chart.resolve("ci/minimal-values.yaml"))
            .call();
    List<HasMetadata> out = new ArrayList<>();
    for (String doc : rendered.split("(?m)^---\\s*$")) {
      if (doc.lines().allMatch(l -> l.isBlank() || l.trim().startsWith("#"))) {
        continue;
      }
      if (Serialization.unmarshal(doc) instanceof HasMetadata h
          && RBAC_KINDS.contains(h.getKind())) {
        out.add(h);
      }
    }
    return out;
  }

  /**
   * Applies the chart's RBAC with {@code admin} and writes a kubeconfig for {@code server} that
   * authenticates as the chart's ServiceAccount (a token valid for a day).
   *
   * @param server the API server the worker talks to (the plane's, or a fault proxy's)
   */
  static Path kubeconfig(KubernetesClient admin, String server, Path file) throws IOException {
    for (HasMetadata o : rbac()) {
      admin.resource(o).inNamespace(NAMESPACE).forceConflicts().serverSideApply();
    }
    String token =
        admin
            .serviceAccounts()
            .inNamespace(NAMESPACE)
            .withName(SERVICE_ACCOUNT)
            .tokenRequest(
                new TokenRequestBuilder()
                    .withNewSpec()
                    .withExpirationSeconds(24 * 3600L)
                    .endSpec()
                    .build())
            .getStatus()
            .getToken();
    String cluster = "    server: " + server;
    if (server.startsWith("https:")) {
      cluster += "\n    certificate-authority-data: " + caData(admin.getConfiguration());
    }
    String yaml =
        String.join(
            "\n",
            "apiVersion: v1",
            "kind: Config",
            "clusters:",
            "- name: local",
            "  cluster:",
            cluster,
            "users:",
            "- name: " + SERVICE_ACCOUNT,
            "  user:",
            "    token: " + token,
            "contexts:",
            "- name: tandem",
            "  context: {cluster: local, user: "
                + SERVICE_ACCOUNT
                + ", namespace: "
                + NAMESPACE
                + "}",
            "current-context: tandem",
            "");
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.writeString(file, yaml);
    return file;
  }

  /**
   * The requests of the chart's ServiceAccount that the API server refused with 403 (verb and URI),
   * from its audit log: a permission Tandem needs and the chart does not grant.
   */
  static List<String> refused(Path auditLog) throws IOException {
    String user = "system:serviceaccount:" + NAMESPACE + ":" + SERVICE_ACCOUNT;
    List<String> out = new ArrayList<>();
    if (!Files.exists(auditLog)) {
      return out;
    }
    try (var lines = Files.lines(auditLog)) {
      for (String line : (Iterable<String>) lines::iterator) {
        if (!line.contains(user) || !line.contains("\"code\":403")) {
          continue;
        }
        JsonNode e = JSON.readTree(line);
        if (user.equals(e.path("user").path("username").asText())
            && e.path("responseStatus").path("code").asInt() == 403) {
          out.add(e.path("verb").asText() + " " + e.path("requestURI").asText());
        }
      }
    }
    return out;
  }

  private static String caData(Config admin) throws IOException {
    if (admin.getCaCertData() != null) {
      return admin.getCaCertData();
    }
    return Base64.getEncoder().encodeToString(Files.readAllBytes(Path.of(admin.getCaCertFile())));
  }

  /** The repository root: Maven passes it; from an IDE the module's parent directory. */
  static Path repositoryRoot() {
    return Path.of(
        System.getProperty("tandem.root", Path.of("").toAbsolutePath().getParent().toString()));
  }
}
