package dev.tandem.activities;

import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmException;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.activities.RemediationActivities;
import dev.tandem.workflows.model.EventRequest;
import dev.tandem.workflows.model.NodeRef;
import dev.tandem.workflows.remediation.HealthCheckResult;
import dev.tandem.workflows.remediation.NodeHealth;
import dev.tandem.workflows.remediation.RemediationTarget;
import dev.tandem.workflows.remediation.ReplaceMode;
import dev.tandem.workflows.remediation.SlotRelease;
import dev.tandem.workflows.remediation.SlotRequest;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.temporal.client.WorkflowClient;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link RemediationActivities} with fabric8 (nodes, pods, NodeSets, events), the Slurm client (the
 * re-check) and the Temporal client (the budget's signals). Every method is idempotent and fails
 * closed (see the interface).
 */
public class RemediationActivitiesImpl implements RemediationActivities {
  private static final Logger log = LoggerFactory.getLogger(RemediationActivitiesImpl.class);

  /** Namespace of events on cluster-scoped Nodes, as kubelet and kubectl use it. */
  static final String NODE_EVENT_NAMESPACE = "default";

  private final KubernetesClient client;
  private final RemediationTargets targets;
  private final NodeHealthCheck health;
  private final NodeWrites nodes;
  private final BudgetSignals budget;
  private final RebootAction reboot;
  private final EventRecorder events;
  private final HealthCheckJobs checks;

  /**
   * @param client Tandem's Kubernetes client (without fabric8's own retries, as for the others)
   * @param slurm the Slurm client, for the re-check
   * @param temporal the Temporal client, for {@code acquire}/{@code release} to the budget
   * @param reboot the configured reboot action ({@link RebootActions#parse})
   * @param clusterBudget {@code TANDEM_CLUSTER_BUDGET}: at most this many Kubernetes nodes out
   *     through automatic actions cluster-wide, or 0 for a tenth of those hosting slurmd pods
   * @param clock for event timestamps
   */
  public RemediationActivitiesImpl(
      KubernetesClient client,
      SlurmClient slurm,
      WorkflowClient temporal,
      RebootAction reboot,
      int clusterBudget,
      Clock clock) {
    this.client = Objects.requireNonNull(client, "client");
    this.targets = new RemediationTargets(client, clusterBudget);
    this.health = new NodeHealthCheck(client, Objects.requireNonNull(slurm, "slurm"));
    this.nodes = new NodeWrites(client);
    this.budget = new BudgetSignals(Objects.requireNonNull(temporal, "temporal"));
    this.reboot = Objects.requireNonNull(reboot, "reboot");
    this.events = new EventRecorder(client, clock);
    this.checks = new HealthCheckJobs(slurm);
  }

  @Override
  public RemediationTarget target(String k8sNode) {
    requireName(k8sNode);
    return targets.read(k8sNode);
  }

  @Override
  public NodeHealth check(RemediationTarget target) {
    if (target == null || target.k8sNode() == null) {
      return new NodeHealth(List.of("no node to check"));
    }
    return health.check(target);
  }

  @Override
  public void requestSlot(SlotRequest request) {
    budget.acquire(request);
  }

  @Override
  public void releaseSlot(SlotRelease release) {
    budget.release(release);
  }

  @Override
  public List<String> restartSlurmdPods(String k8sNode, List<NodeRef> slurmNodes) {
    requireName(k8sNode);
    List<String> deleted = new ArrayList<>();
    for (NodeRef n : slurmNodes == null ? List.<NodeRef>of() : slurmNodes) {
      if (deleteIfOn(k8sNode, n)) {
        deleted.add(n.namespace() + "/" + n.pod());
      }
    }
    return deleted;
  }

  /**
   * Deletes the pod if it still runs on {@code k8sNode} and is not being deleted. The delete is
   * conditional on the resourceVersion read (stronger than a uid precondition): a pod recreated
   * meanwhile, possibly elsewhere, is never deleted by mistake; 409 re-reads.
   */
  private boolean deleteIfOn(String k8sNode, NodeRef n) {
    String what = "restart slurmd pod " + n.namespace() + "/" + n.pod();
    return KubeCalls.withConflictRetry(
        what,
        () -> {
          Pod p = client.pods().inNamespace(n.namespace()).withName(n.pod()).get();
          if (p == null
              || p.getMetadata().getDeletionTimestamp() != null
              || p.getSpec() == null
              || !k8sNode.equals(p.getSpec().getNodeName())) {
            return false;
          }
          try {
            client
                .pods()
                .inNamespace(n.namespace())
                .withName(n.pod())
                .lockResourceVersion(p.getMetadata().getResourceVersion())
                .delete();
          } catch (KubernetesClientException e) {
            if (KubeCalls.is(e, 404)) {
              return false;
            }
            throw e;
          }
          log.info(
              "remediation of node {}: deleted slurmd pod {}/{}", k8sNode, n.namespace(), n.pod());
          return true;
        });
  }

  @Override
  public void requestReboot(String k8sNode, String token, String reason) {
    requireName(k8sNode);
    if (token == null || token.isBlank()) {
      throw KubeCalls.rejected("requestReboot needs a token");
    }
    reboot.request(k8sNode, token, reason);
    log.info(
        "remediation of node {}: reboot requested ({}, token {})",
        k8sNode,
        reboot.describe(),
        token);
  }

  @Override
  public boolean rebootDone(String k8sNode, String token) {
    requireName(k8sNode);
    return reboot.done(k8sNode, token);
  }

  @Override
  public void replaceNode(String k8sNode, ReplaceMode mode, String reason) {
    requireName(k8sNode);
    if (!nodes.cordon(k8sNode, reason)) {
      log.info("remediation of node {}: replace: the node is already gone", k8sNode);
      return;
    }
    if (mode == ReplaceMode.DELETE) {
      nodes.delete(k8sNode);
      log.info("remediation of node {}: cordoned and deleted the Node object", k8sNode);
    } else {
      nodes.annotate(
          k8sNode, Map.of(Names.ANNOTATION_REPLACE_REQUESTED, reason == null ? "" : reason));
      log.info("remediation of node {}: cordoned and marked for replacement", k8sNode);
    }
  }

  @Override
  public long startHealthCheck(RemediationTarget target, String token) {
    if (target == null || target.k8sNode() == null) {
      throw KubeCalls.rejected("startHealthCheck needs a target");
    }
    requireName(target.k8sNode());
    try {
      return checks.start(target, token);
    } catch (SlurmException | IllegalArgumentException e) {
      throw failure("start the health check of " + target.k8sNode(), e);
    }
  }

  @Override
  public HealthCheckResult healthCheckResult(long jobId) {
    try {
      return checks.result(jobId);
    } catch (SlurmException e) {
      throw failure("read health-check job " + jobId, e);
    }
  }

  @Override
  public void endHealthCheck(String k8sNode, long jobId) {
    requireName(k8sNode);
    try {
      checks.end(k8sNode, jobId);
    } catch (SlurmException e) {
      throw failure("end the health check of " + k8sNode, e);
    }
  }

  private static RuntimeException failure(String what, RuntimeException e) {
    return e instanceof SlurmException s
        ? SlurmFailures.translate(what, s)
        : SlurmFailures.rejected(what + ": " + e.getMessage());
  }

  @Override
  public void nodeEvent(String k8sNode, String type, String reason, String message) {
    events.record(
        new EventRequest(NODE_EVENT_NAMESPACE, EventRecorder.NODE, k8sNode, type, reason, message));
  }

  private static void requireName(String k8sNode) {
    if (k8sNode == null || k8sNode.isBlank()) {
      throw KubeCalls.rejected("a Kubernetes node name is required");
    }
  }
}
