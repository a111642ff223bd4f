package dev.tandem.devstack.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TandemCallsTest {
  @TempDir Path dir;

  @AfterEach
  void unset() {
    System.clearProperty(TandemCalls.PROPERTY);
  }

  @Test
  void tandemsCallsOnlyEachOnceWithTheAuthorizersVerb() throws Exception {
    Path log = dir.resolve("plane/audit.log");
    Files.createDirectories(log.getParent());
    Files.write(
        log,
        List.of(
            event("tandem/0.1.0", "watch", "", "pods", null),
            event("tandem/0.1.0", "watch", "", "pods", null),
            event("tandem/0.1.0", "create", "", "pods", "binding"),
            event("kube-scheduler/v1.37.2", "create", "", "pods", "binding"),
            event("tandem/0.1.0", "patch", "coordination.k8s.io", "leases", null),
            "{\"verb\":\"get\",\"userAgent\":\"tandem/0.1.0\",\"requestURI\":\"/version\"}"));
    Files.write(
        dir.resolve("plane/audit-2026-12-06T10-00-00.000.log"),
        List.of(event("tandem/0.1.0", "update", "tandem.dev", "nodesets", "status")));
    System.setProperty(TandemCalls.PROPERTY, dir.resolve("out").toString());

    TandemCalls.export(log, 6443);

    assertEquals(
        List.of(
            "create\t\tpods\tbinding",
            "patch\tcoordination.k8s.io\tleases\t",
            "update\ttandem.dev\tnodesets\tstatus",
            "watch\t\tpods\t"),
        Files.readAllLines(
            dir.resolve("out/calls-" + ProcessHandle.current().pid() + "-6443.tsv")));
  }

  @Test
  void writesNothingWithoutADirectory() throws Exception {
    Path log = dir.resolve("audit.log");
    Files.write(log, List.of(event("tandem/0.1.0", "list", "", "nodes", null)));
    TandemCalls.export(log, 6443);
    try (var files = Files.list(dir)) {
      assertEquals(List.of(log), files.toList());
    }
  }

  private static String event(
      String agent, String verb, String group, String resource, String sub) {
    return "{\"kind\":\"Event\",\"verb\":\""
        + verb
        + "\",\"userAgent\":\""
        + agent
        + "\",\"objectRef\":{\"resource\":\""
        + resource
        + "\""
        + (group.isEmpty() ? "" : ",\"apiGroup\":\"" + group + "\"")
        + (sub == null ? "" : ",\"subresource\":\"" + sub + "\"")
        + ",\"namespace\":\"default\"}}";
  }
}
