package dev.tandem.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The worker Deployment: image, replicas, probes on the worker's port, budget, spread. */
class ChartWorkerTest {
  private static final String APP_VERSION =
      Chart.read(Chart.DIR.resolve("Chart.yaml"))
          .lines()
          .filter(l -> l.startsWith("appVersion:"))
          .findFirst()
          .orElseThrow()
          .replaceAll("appVersion:\\s*\"?([^\"]*)\"?", "$1")
          .trim();

  private static Container container(Deployment d) {
    return d.getSpec().getTemplate().getSpec().getContainers().get(0);
  }

  @Test
  void defaults() {
    List<HasMetadata> objects = Chart.render(null, Map.of());
    Deployment d = Chart.worker(objects);
    assertEquals(2, d.getSpec().getReplicas());
    Container c = container(d);
    assertEquals("ghcr.io/tandem-dev/tandem:" + APP_VERSION, c.getImage());
    assertEquals(9090, c.getPorts().get(0).getContainerPort());
    assertEquals("/healthz", c.getLivenessProbe().getHttpGet().getPath());
    assertEquals("/readyz", c.getReadinessProbe().getHttpGet().getPath());
    assertEquals(
        c.getPorts().get(0).getName(), c.getLivenessProbe().getHttpGet().getPort().getStrVal());
    assertEquals(
        c.getPorts().get(0).getName(), c.getReadinessProbe().getHttpGet().getPort().getStrVal());
    assertNotNull(c.getResources().getRequests().get("memory"));
    assertNotNull(c.getResources().getLimits().get("memory"));
    PodSpec pod = d.getSpec().getTemplate().getSpec();
    assertEquals(2, pod.getTopologySpreadConstraints().size());
    assertEquals(
        d.getSpec().getSelector().getMatchLabels(),
        pod.getTopologySpreadConstraints().get(0).getLabelSelector().getMatchLabels());
    assertTrue(pod.getTerminationGracePeriodSeconds() > 30, "longer than TANDEM_SHUTDOWN_GRACE");
    PodDisruptionBudget pdb = Chart.one(objects, PodDisruptionBudget.class);
    assertEquals(1, pdb.getSpec().getMaxUnavailable().getIntVal());
    assertEquals(
        d.getSpec().getSelector().getMatchLabels(), pdb.getSpec().getSelector().getMatchLabels());
    Service metrics = Chart.one(objects, Service.class);
    assertEquals(d.getSpec().getSelector().getMatchLabels(), metrics.getSpec().getSelector());
    assertEquals("http-metrics", metrics.getSpec().getPorts().get(0).getTargetPort().getStrVal());
  }

  @Test
  void theHttpPortIsTheWorkersPortEverywhere() {
    List<HasMetadata> objects = Chart.render(null, Map.of("config.TANDEM_HTTP_PORT", "8123"));
    Container c = container(Chart.worker(objects));
    assertEquals(8123, c.getPorts().get(0).getContainerPort());
    assertTrue(
        c.getEnv().stream()
            .anyMatch(e -> e.getName().equals("TANDEM_HTTP_PORT") && "8123".equals(e.getValue())));
  }

  @Test
  void imageTagAndReplicasAreValues() {
    List<HasMetadata> objects =
        Chart.render(
            null,
            Map.of(
                "image.repository",
                "registry.example/tandem",
                "image.tag",
                "1.2.3",
                "replicaCount",
                1));
    Deployment d = Chart.worker(objects);
    assertEquals("registry.example/tandem:1.2.3", container(d).getImage());
    assertTrue(
        Chart.ofType(objects, PodDisruptionBudget.class).isEmpty(), "no budget for one replica");
  }

  @Test
  void podIdentityComesFromTheDownwardApi() {
    List<EnvVar> env = Chart.workerEnv(Chart.render(null, Map.of()));
    for (String n : List.of("POD_NAME", "POD_NAMESPACE")) {
      EnvVar v = env.stream().filter(e -> e.getName().equals(n)).findFirst().orElseThrow();
      assertNotNull(v.getValueFrom().getFieldRef(), n);
    }
    assertFalse(env.stream().anyMatch(e -> e.getName().equals("TANDEM_IDENTITY")));
  }

  @Test
  void aMissingSlurmUrlIsRefusedAtRender() {
    Exception e =
        assertThrows(
            Exception.class, () -> Chart.template(null, Map.of("config.SLURM_REST_URL", "")));
    assertTrue(e.getMessage().contains("SLURM_REST_URL is required"), e.getMessage());
  }
}
