package dev.tandem.workflows.remediation;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.activities.RemediationActivities;
import dev.tandem.workflows.activities.SlurmActivities;
import dev.tandem.workflows.model.DrainReason;
import dev.tandem.workflows.model.NodeJobs;
import dev.tandem.workflows.model.NodeRef;
import dev.tandem.workflows.model.SlurmNodeView;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Kubernetes nodes, their Slurm nodes and the budget behind {@link RemediationActivities} and
 * {@link SlurmActivities}, in memory, with the real activities' contract: the slot requests are
 * signal-with-starts of the real budget workflow, Slurm's drain never replaces an administrator's
 * reason and undrain clears only Tandem's. An action heals a node when the test says so.
 */
public class FakeRepair implements RemediationActivities, SlurmActivities {
  /** Per Kubernetes node: what the re-check finds wrong (empty = healthy). */
  public final Map<String, List<String>> problems = new ConcurrentHashMap<>();

  /** Per Kubernetes node: the action that heals it (then its problems clear). */
  public final Map<String, RemediationAction> healedBy = new ConcurrentHashMap<>();

  public final Map<String, RemediationTarget> targets = new ConcurrentHashMap<>();

  /** Slurm: reason per node (null = not drained), jobs per node. */
  public final Map<String, String> slurmReason = new ConcurrentHashMap<>();

  public final Map<String, List<Long>> jobs = new ConcurrentHashMap<>();
  public final Set<String> down = ConcurrentHashMap.newKeySet();

  /** Every call that changes the world, in order, e.g. {@code restart k1}, {@code release k1}. */
  public final List<String> log = Collections.synchronizedList(new ArrayList<>());

  public final List<String> events = Collections.synchronizedList(new ArrayList<>());
  public volatile boolean rebootDone = true;
  public volatile boolean failChecks;
  public volatile WorkflowClient client;

  /** Adds node {@code k8sNode} with Slurm nodes {@code pods} (NodeSet default/gpu). */
  public void addNode(
      String k8sNode, RemediationPolicy policy, Map<String, String> labels, String... pods) {
    List<NodeRef> refs = new ArrayList<>();
    for (String p : pods) {
      refs.add(new NodeRef("default", "gpu", p, 0));
      jobs.putIfAbsent(p, List.of());
    }
    targets.put(
        k8sNode,
        new RemediationTarget(k8sNode, true, refs, List.of("default/gpu"), labels, policy));
    problems.put(k8sNode, List.of("GpuUnhealthy=True: Xid 79"));
  }

  private void act(String k8sNode, RemediationAction a) {
    if (healedBy.get(k8sNode) == a) {
      problems.put(k8sNode, List.of());
    }
  }

  // ---- RemediationActivities ----

  /** Nodes a Replace with mode DELETE removed. */
  final java.util.Set<String> deleted = java.util.concurrent.ConcurrentHashMap.newKeySet();

  /** What the Slurm side still shows once the node is deleted (none: its pods run elsewhere). */
  final Map<String, List<String>> slurmProblemsAfterDelete = new ConcurrentHashMap<>();

  /** The worker's cluster limit ({@code TANDEM_CLUSTER_BUDGET}); high enough not to matter. */
  public volatile int clusterBudget = 100;

  /** The node as read, with the budget's shape of every node added so far. */
  @Override
  public RemediationTarget target(String k8sNode) {
    RemediationTarget t = targets.get(k8sNode);
    if (t == null) {
      return new RemediationTarget(k8sNode, false, List.of(), List.of(), Map.of(), null);
    }
    List<BudgetShape.Placement> placed = new ArrayList<>();
    targets.forEach(
        (node, x) -> x.nodeSets().forEach(ns -> placed.add(new BudgetShape.Placement(ns, node))));
    return new RemediationTarget(
        t.k8sNode(),
        t.exists(),
        t.slurmNodes(),
        t.nodeSets(),
        t.labels(),
        t.policy(),
        BudgetShape.of(placed, clusterBudget));
  }

  @Override
  public NodeHealth check(RemediationTarget target) {
    if (failChecks) {
      throw new IllegalStateException("API server down");
    }
    if (deleted.contains(target.k8sNode())) {
      List<String> p = new java.util.ArrayList<>();
      p.add("node " + target.k8sNode() + ": does not exist");
      p.addAll(slurmProblemsAfterDelete.getOrDefault(target.k8sNode(), List.of()));
      return new NodeHealth(p, true);
    }
    return new NodeHealth(problems.getOrDefault(target.k8sNode(), List.of("unknown node")));
  }

  @Override
  public void requestSlot(SlotRequest request) {
    log.add("acquire " + request.k8sNode());
    WorkflowStub budget =
        client.newUntypedWorkflowStub(
            "RemediationBudget",
            WorkflowOptions.newBuilder()
                .setWorkflowId(Names.REMEDIATION_BUDGET_ID)
                .setTaskQueue(Names.TASK_QUEUE)
                .build());
    budget.signalWithStart(Names.SIGNAL_ACQUIRE, new Object[] {request}, new Object[] {null});
  }

  @Override
  public void releaseSlot(SlotRelease release) {
    log.add("release " + release.k8sNode());
    client
        .newUntypedWorkflowStub(
            "RemediationBudget",
            WorkflowOptions.newBuilder()
                .setWorkflowId(Names.REMEDIATION_BUDGET_ID)
                .setTaskQueue(Names.TASK_QUEUE)
                .build())
        .signalWithStart(Names.SIGNAL_RELEASE, new Object[] {release}, new Object[] {null});
  }

  @Override
  public List<String> restartSlurmdPods(String k8sNode, List<NodeRef> nodes) {
    log.add("restart " + k8sNode);
    act(k8sNode, RemediationAction.RESTART_SLURMD);
    return nodes.stream().map(NodeRef::pod).toList();
  }

  @Override
  public void requestReboot(String k8sNode, String token, String reason) {
    log.add("reboot " + k8sNode + " " + token);
    act(k8sNode, RemediationAction.REBOOT);
  }

  @Override
  public boolean rebootDone(String k8sNode, String token) {
    return rebootDone;
  }

  @Override
  public void replaceNode(String k8sNode, ReplaceMode mode, String reason) {
    log.add("replace " + k8sNode + " " + mode);
    act(k8sNode, RemediationAction.REPLACE);
    if (mode == ReplaceMode.DELETE) {
      deleted.add(k8sNode);
    }
  }

  /** The health-check jobs (startHealthCheck, healthCheckResult, endHealthCheck). */
  public final FakeHealthChecks checks = new FakeHealthChecks(this);

  @Override
  public long startHealthCheck(RemediationTarget target, String token) {
    return checks.start(target, token);
  }

  @Override
  public HealthCheckResult healthCheckResult(long jobId) {
    return checks.result(jobId);
  }

  @Override
  public void endHealthCheck(String k8sNode, long jobId) {
    checks.end(k8sNode, jobId);
  }

  @Override
  public void nodeEvent(String k8sNode, String type, String reason, String message) {
    events.add(k8sNode + " " + type + " " + reason + ": " + message);
  }

  // ---- SlurmActivities ----

  @Override
  public SlurmNodeView getNode(String name) {
    if (!jobs.containsKey(name)) {
      return SlurmNodeView.unknown(name, Instant.now());
    }
    String reason = slurmReason.get(name);
    Set<String> flags = reason == null ? Set.of() : Set.of("DRAIN");
    String state = down.contains(name) ? "down" : jobs.get(name).isEmpty() ? "idle" : "allocated";
    return new SlurmNodeView(name, true, state, flags, reason, null, null, Instant.now());
  }

  @Override
  public SlurmNodeView drain(String name, String reason) {
    log.add("slurm-drain " + name);
    String cur = slurmReason.get(name);
    if (cur == null || DrainReason.parse(cur).isPresent()) {
      slurmReason.put(name, reason);
    }
    return getNode(name);
  }

  @Override
  public SlurmNodeView undrain(String name) {
    log.add("slurm-undrain " + name);
    String cur = slurmReason.get(name);
    if (cur != null && DrainReason.parse(cur).isPresent()) {
      slurmReason.remove(name);
    }
    return getNode(name);
  }

  @Override
  public NodeJobs jobsOnNode(String name) {
    return new NodeJobs(name, jobs.getOrDefault(name, List.of()));
  }

  @Override
  public SlurmNodeView forceDown(String name, String reason) {
    log.add("force-down " + name + " " + reason);
    down.add(name);
    slurmReason.put(name, reason);
    jobs.put(name, List.of());
    return getNode(name);
  }

  @Override
  public boolean removeNode(String name) {
    return false;
  }

  /** How many of {@code prefix} lines the log has. */
  public long count(String prefix) {
    synchronized (log) {
      return log.stream().filter(s -> s.startsWith(prefix)).count();
    }
  }

  public List<String> logCopy() {
    synchronized (log) {
      return new ArrayList<>(log);
    }
  }

  static Map<String, String> labels(String... kv) {
    Map<String, String> m = new HashMap<>();
    for (int i = 0; i + 1 < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }
}
