package dev.tandem.activities;

import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmNode;
import dev.tandem.slurm.SlurmNotFoundException;
import dev.tandem.workflows.model.NodeRef;
import dev.tandem.workflows.remediation.NodeHealth;
import dev.tandem.workflows.remediation.RemediationTarget;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.List;

/**
 * The re-check of a remediation ({@link NodeHealth}). Fail closed: whatever cannot be read is a
 * problem, never healthy.
 *
 * <ol>
 *   <li>The Kubernetes node exists and its Ready condition is True.
 *   <li>None of the policy's conditions is True on it.
 *   <li>Each Slurm node of the target has a slurmd pod that is Running and not being deleted
 *       (wherever it runs now): right after a pod restart Slurm still shows the old slurmd's state
 *       for up to SlurmdTimeout, so Slurm alone would call a node healthy too early.
 *   <li>Each Slurm node is known to Slurm, registered (not FUTURE or unknown) and responding (not
 *       DOWN, not NOT_RESPONDING). A DRAIN flag is not a problem: remediation's own drain stays
 *       until the node returns to service.
 * </ol>
 */
final class NodeHealthCheck {
  private final KubernetesClient client;
  private final SlurmClient slurm;

  NodeHealthCheck(KubernetesClient client, SlurmClient slurm) {
    this.client = client;
    this.slurm = slurm;
  }

  NodeHealth check(RemediationTarget target) {
    List<String> problems = new ArrayList<>();
    boolean gone = !kubernetesNode(target, problems);
    for (NodeRef n : target.slurmNodes()) {
      pod(n, problems);
      slurmNode(n.slurmName(), problems);
    }
    return new NodeHealth(problems, gone);
  }

  /** Adds the node's problems; false if, and only if, the API says the node does not exist. */
  private boolean kubernetesNode(RemediationTarget target, List<String> problems) {
    String name = target.k8sNode();
    Node node;
    try {
      node = RemediationTargets.getNode(client, name);
    } catch (KubernetesClientException e) {
      problems.add("node " + name + ": cannot read it (" + KubeCalls.apiMessage(e) + ")");
      return true;
    }
    if (node == null) {
      problems.add("node " + name + ": does not exist");
      return false;
    }
    List<NodeCondition> conditions =
        node.getStatus() == null || node.getStatus().getConditions() == null
            ? List.of()
            : node.getStatus().getConditions();
    NodeCondition ready = find(conditions, "Ready");
    if (ready == null || !"True".equals(ready.getStatus())) {
      problems.add(
          "Ready="
              + (ready == null ? "missing" : ready.getStatus())
              + detail(ready == null ? null : ready.getMessage()));
    }
    for (String type : target.policy().conditions()) {
      NodeCondition c = find(conditions, type);
      if (c != null && "True".equals(c.getStatus())) {
        problems.add(type + "=True" + detail(c.getMessage()));
      }
    }
    return true;
  }

  private void pod(NodeRef n, List<String> problems) {
    String ref = n.namespace() + "/" + n.pod();
    Pod p;
    try {
      p = client.pods().inNamespace(n.namespace()).withName(n.pod()).get();
    } catch (KubernetesClientException e) {
      problems.add("pod " + ref + ": cannot read it (" + KubeCalls.apiMessage(e) + ")");
      return;
    }
    if (p == null) {
      problems.add("pod " + ref + ": does not exist");
    } else if (p.getMetadata().getDeletionTimestamp() != null) {
      problems.add("pod " + ref + ": being deleted");
    } else if (p.getStatus() == null || !"Running".equals(p.getStatus().getPhase())) {
      problems.add(
          "pod "
              + ref
              + ": "
              + (p.getStatus() == null || p.getStatus().getPhase() == null
                  ? "no phase"
                  : p.getStatus().getPhase()));
    }
  }

  private void slurmNode(String name, List<String> problems) {
    SlurmNode s;
    try {
      s = slurm.getNode(name);
    } catch (SlurmNotFoundException e) {
      problems.add(name + ": unknown to Slurm");
      return;
    } catch (RuntimeException e) {
      problems.add(name + ": cannot read it from Slurm (" + e.getMessage() + ")");
      return;
    }
    if (s == null) {
      problems.add(name + ": unknown to Slurm");
    } else if (s.down()) {
      problems.add(name + ": " + s.state().toUpperCase(java.util.Locale.ROOT) + detail(s.reason()));
    } else if (s.notResponding()) {
      problems.add(name + ": NOT_RESPONDING");
    } else if (s.future() || "unknown".equals(s.state())) {
      problems.add(name + ": not registered (" + s.state() + ")");
    }
  }

  private static NodeCondition find(List<NodeCondition> conditions, String type) {
    return conditions.stream().filter(c -> type.equals(c.getType())).findFirst().orElse(null);
  }

  private static String detail(String message) {
    return message == null || message.isBlank() ? "" : " (" + message.strip() + ")";
  }
}
