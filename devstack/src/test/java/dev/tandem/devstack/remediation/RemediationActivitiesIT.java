package dev.tandem.devstack.remediation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.activities.RebootActions;
import dev.tandem.activities.RemediationActivitiesImpl;
import dev.tandem.devstack.kube.SharedKubernetes;
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
 * {@link RemediationActivitiesImpl} with the real local Slurm 22.05 and the real control plane,
 * through a client identified as Tandem, so the calls it makes are recorded for the chart's RBAC
 * check (ChartRbacIT): every Kubernetes call of the remediation activities is made here.
 */
class RemediationActivitiesIT extends RemediationApiBase {

  @Test
  void reCheckAgainstTheRealSlurmAndEveryKubernetesCall() throws Exception {
    SlurmClient slurm = LocalSlurm.get().client();
    String host = unique("it-host");
    try (KubernetesClient tandem =
        KubeClients.build(
            new ConfigBuilder(SharedKubernetes.get().adminConfig())
                .withRequestRetryBackoffLimit(0)
                .build())) {
      node(client, host, Map.of("rack", "r7"), Map.of("Ready", "True"));
      nodeSet(client, "n", "{}");
      // Slurm node n1 of the local Slurm (static, registered, idle) as the pod n1 of NodeSet n.
      slurmdPod(client, "n1", "n", 1, host);
      RemediationActivitiesImpl activities =
          new RemediationActivitiesImpl(
              tandem,
              slurm,
              Mockito.mock(WorkflowClient.class),
              RebootActions.parse("annotation", tandem, Clock.systemUTC()),
              0,
              Clock.systemUTC());

      RemediationTarget t = activities.target(host);
      assertEquals(List.of(new NodeRef(ns, "n", "n1", 1)), t.slurmNodes());
      assertEquals(List.of(), activities.check(t).problems(), "n1 is idle and responding");

      // A pool node never started (State=FUTURE) and a name Slurm does not know: both problems.
      slurmdPod(client, "spare-3", "spare", 3, host);
      slurmdPod(client, "nosuch-7", "nosuch", 7, host);
      RemediationTarget all = activities.target(host);
      NodeHealth h = activities.check(all);
      assertEquals(2, h.problems().size(), h.summary());
      assertEquals("nosuch-7: unknown to Slurm", h.problems().get(0));
      assertTrue(h.problems().get(1).startsWith("spare-3: "), h.summary());

      assertEquals(
          List.of(ns + "/n1", ns + "/nosuch-7", ns + "/spare-3"),
          activities.restartSlurmdPods(host, all.slurmNodes()));
      activities.requestReboot(host, "tok", "GpuUnhealthy=True");
      assertFalse(activities.rebootDone(host, "tok"));
      activities.replaceNode(host, ReplaceMode.MARK, "tandem:remediation: it");
      activities.nodeEvent(host, "Warning", "RemediationFailed", "it");
      var node = client.nodes().withName(host).get();
      assertEquals(true, node.getSpec().getUnschedulable());
      assertEquals(
          "tandem:remediation: it",
          node.getMetadata().getAnnotations().get(Names.ANNOTATION_REPLACE_REQUESTED));
      activities.replaceNode(host, ReplaceMode.DELETE, "tandem:remediation: it");
      assertNull(client.nodes().withName(host).get());
    }
  }
}
