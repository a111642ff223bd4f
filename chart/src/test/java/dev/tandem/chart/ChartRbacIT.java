package dev.tandem.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The chart grants exactly the Kubernetes calls Tandem makes. Every local control plane's API
 * server audits every request; when a plane stops, the calls of {@code tandem/} clients during the
 * ITs of the modules before this one are exported (TandemCalls in devstack, directory {@code
 * target/k8s-audit} of the repository); this test compares that set with the chart's ClusterRole
 * and Role. An IT because it needs those ITs' output.
 */
class ChartRbacIT {
  /**
   * Granted but never seen in the ITs, each on purpose. Keep it tiny: every entry is a permission a
   * real cluster needs on a path the local tests cannot reach.
   */
  private static final Map<Permission, String> UNRECORDED =
      Map.of(
          new Permission("update", "tandem.dev", "nodesets/finalizers"),
          "no request: the OwnerReferencesPermissionEnforcement admission plugin checks it when a"
              + " slurmd pod naming its NodeSet with blockOwnerDeletion is created (docs/install.md),"
              + " not a request of its own that the audit log would show");

  record Permission(String verb, String group, String resource) implements Comparable<Permission> {
    @Override
    public int compareTo(Permission o) {
      return toString().compareTo(o.toString());
    }

    @Override
    public String toString() {
      return verb + " " + (group.isEmpty() ? "core" : group) + "/" + resource;
    }
  }

  static Path auditDir() {
    String d = System.getProperty("tandem.k8s.audit.dir");
    return d == null || d.isBlank() ? Chart.ROOT.resolve("target/k8s-audit") : Path.of(d);
  }

  static Set<Permission> recorded() throws IOException {
    Path dir = auditDir();
    List<Path> files = new ArrayList<>();
    if (Files.isDirectory(dir)) {
      try (Stream<Path> s = Files.list(dir)) {
        files = s.filter(p -> p.toString().endsWith(".tsv")).toList();
      }
    }
    assertTrue(
        !files.isEmpty(),
        () ->
            "no Kubernetes calls recorded in "
                + dir
                + ": run the ITs that record them first, e.g. ./mvnw -B verify (the whole build),"
                + " or at least ./mvnw -B -pl watchers,devtools,chart -am verify");
    Set<Permission> out = new TreeSet<>();
    for (Path f : files) {
      for (String line : Files.readAllLines(f)) {
        if (line.isBlank()) {
          continue;
        }
        String[] p = line.split("\t", -1);
        String resource = p[3].isEmpty() ? p[2] : p[2] + "/" + p[3];
        out.add(new Permission(p[0], p[1], resource));
      }
    }
    return out;
  }

  static Set<Permission> granted(List<HasMetadata> objects) {
    List<PolicyRule> rules = new ArrayList<>();
    Chart.ofType(objects, ClusterRole.class).forEach(r -> rules.addAll(r.getRules()));
    Chart.ofType(objects, Role.class).forEach(r -> rules.addAll(r.getRules()));
    Set<Permission> out = new TreeSet<>();
    for (PolicyRule r : rules) {
      for (String g : r.getApiGroups()) {
        for (String res : r.getResources()) {
          for (String v : r.getVerbs()) {
            assertTrue(!v.equals("*") && !res.equals("*") && !g.equals("*"), "wildcard in " + r);
            out.add(new Permission(v, g, res));
          }
        }
      }
    }
    return out;
  }

  @Test
  void theChartGrantsExactlyWhatTandemUses() throws IOException {
    Set<Permission> used = recorded();
    Set<Permission> granted = granted(Chart.render(null, Map.of()));
    Set<Permission> missing = new TreeSet<>(used);
    missing.removeAll(granted);
    assertEquals(Set.of(), missing, "Tandem makes these calls but the chart does not grant them");
    Set<Permission> unused = new TreeSet<>(granted);
    unused.removeAll(used);
    unused.removeAll(UNRECORDED.keySet());
    assertEquals(
        Set.of(),
        unused,
        "the chart grants these but no test saw Tandem use them (remove them, or add a test that"
            + " reaches the call; only a path no local test can reach belongs in UNRECORDED)");
  }
}
