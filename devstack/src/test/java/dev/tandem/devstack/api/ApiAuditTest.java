package dev.tandem.devstack.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ApiAuditTest {
  private static final String TANDEM = "tandem/0.1.0";

  private static ApiRequest req(String method, String path, String ua) {
    return new ApiRequest(method, path, null, ua, null);
  }

  private static List<String> lines(Path dir) throws IOException {
    try (var files = Files.list(dir)) {
      Path f = files.findFirst().orElseThrow();
      return Files.readAllLines(f);
    }
  }

  @Test
  void recordsEachPermissionOfTandemClientsOnce(@TempDir Path dir) throws IOException {
    ApiAudit audit = new ApiAudit(dir);
    audit.record(req("GET", "/api/v1/namespaces/default/pods/p", TANDEM));
    audit.record(req("GET", "/api/v1/namespaces/default/pods/q", TANDEM + " replica-a"));
    audit.record(req("GET", "/api/v1/pods?watch=true&resourceVersion=1", TANDEM));
    audit.record(req("GET", "/apis/tandem.dev/v1/namespaces/x/nodesets", TANDEM));
    audit.record(req("POST", "/api/v1/namespaces/default/bindings", TANDEM));
    audit.record(req("POST", "/api/v1/namespaces/default/pods/p/eviction", TANDEM));
    audit.record(req("PATCH", "/apis/tandem.dev/v1/namespaces/x/nodesets/a/status", TANDEM));
    audit.record(req("PUT", "/apis/policy/v1/namespaces/x/poddisruptionbudgets/b", TANDEM));
    audit.record(req("DELETE", "/api/v1/namespaces/default/pods/p", TANDEM));
    audit.record(req("DELETE", "/api/v1/namespaces/default/pods", TANDEM));
    assertEquals(
        List.of(
            "get\t\tpods\t",
            "watch\t\tpods\t",
            "list\ttandem.dev\tnodesets\t",
            "create\t\tbindings\t",
            "create\t\tpods\teviction",
            "patch\ttandem.dev\tnodesets\tstatus",
            "update\tpolicy\tpoddisruptionbudgets\t",
            "delete\t\tpods\t",
            "deletecollection\t\tpods\t"),
        lines(dir));
  }

  @Test
  void ignoresOtherClientsAndDiscovery(@TempDir Path dir) throws IOException {
    ApiAudit audit = new ApiAudit(dir);
    audit.record(req("GET", "/api/v1/namespaces/default/pods/p", "kubectl/v1.31"));
    audit.record(req("GET", "/api/v1/namespaces/default/pods/p", null));
    audit.record(req("GET", "/apis", TANDEM));
    audit.record(req("GET", "/api/v1", TANDEM));
    try (var files = Files.list(dir)) {
      assertFalse(files.findAny().isPresent());
    }
  }

  @Test
  void offWithoutADirectory() {
    new ApiAudit(null).record(req("GET", "/api/v1/namespaces/default/pods/p", TANDEM));
  }
}
