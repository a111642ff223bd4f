package dev.tandem.devstack.remediation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.activities.RebootActions;
import dev.tandem.activities.RemediationActivitiesImpl;
import dev.tandem.devstack.api.LocalApiServer;
import dev.tandem.k8s.KubeClients;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.local.LocalSlurm;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodeRef;
import dev.tandem.workflows.remediation.NodeHealth;
import dev.tandem.workflows.remediation.RemediationTarget;
import dev.tandem.workflows.remediation.ReplaceMode;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.temporal.client.WorkflowClient;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.mockito.Mockito;

/**
 * {@link RemediationActivitiesImpl} with the real local Slurm 22.05 and the local Kubernetes API,
 * through a client identified as Tandem, so the calls it makes are recorded for the chart's RBAC
 * check (ChartRbacIT): every Kubernetes call of the remediation activities is made here.
 */
class RemediationActivitiesIT {

  @Test
  void reCheckAgainstTheRealSlurmAndEveryKubernetesCall() throws Exception {
    SlurmClient slurm = LocalSlurm.get().client();
    try (LocalApiServer server = LocalApiServer.start(0);
        KubernetesClient tandem =
            KubeClients.build(
                new ConfigBuilder(server.client().getConfiguration())
                    .withRequestRetryBackoffLimit(0)
                    .build())) {
      server.installCrd("META-INF/fabric8/nodesets.tandem.dev-v1.yml");
      KubernetesClient admin = server.client();
      RemediationApiBase.node(admin, "it-host", Map.of("rack", "r7"), Map.of("Ready", "True"));
      RemediationApiBase.nodeSet(admin, "n", "{}");
      // Slurm node n1 of the local Slurm (static, registered, idle) as the pod n1 of NodeSet n.
      RemediationApiBase.slurmdPod(admin, "n1", "n", 1, "it-host");
      RemediationActivitiesImpl activities =
          new RemediationActivitiesImpl(
              tandem,
              slurm,
              Mockito.mock(WorkflowClient.class),
              RebootActions.parse("annotation", tandem, Clock.systemUTC()),
              0,
              Clock.systemUTC());

      RemediationTarget t = activities.target("it-host");
      assertEquals(List.of(new NodeRef("default", "n", "n1", 1)), t.slurmNodes());
      assertEquals(List.of(), activities.check(t).problems(), "n1 is idle and responding");

      // A pool node never started (State=FUTURE) and a name Slurm does not know: both problems.
      RemediationApiBase.slurmdPod(admin, "spare-3", "spare", 3, "it-host");
      RemediationApiBase.slurmdPod(admin, "nosuch-7", "nosuch", 7, "it-host");
      RemediationTarget all = activities.target("it-host");
      NodeHealth h = activities.check(all);
      assertEquals(2, h.problems().size(), h.summary());
      assertEquals("nosuch-7: unknown to Slurm", h.problems().get(0));
      assertTrue(h.problems().get(1).startsWith("spare-3: "), h.summary());

      assertEquals(
          List.of("default/n1", "default/nosuch-7", "default/spare-3"),
          activities.restartSlurmdPods("it-host", all.slurmNodes()));
      activities.requestReboot("it-host", "tok", "GpuUnhealthy=True");
      assertFalse(activities.rebootDone("it-host", "tok"));
      activities.replaceNode("it-host", ReplaceMode.MARK, "tandem:remediation: it");
      activities.nodeEvent("it-host", "Warning", "RemediationFailed", "it");
      var node = admin.nodes().withName("it-host").get();
      assertEquals(true, node.getSpec().getUnschedulable());
      assertEquals(
          "tandem:remediation: it",
          node.getMetadata().getAnnotations().get(Names.ANNOTATION_REPLACE_REQUESTED));
      activities.replaceNode("it-host", ReplaceMode.DELETE, "tandem:remediation: it");
      assertNull(admin.nodes().withName("it-host").get());
    }
  }
}
