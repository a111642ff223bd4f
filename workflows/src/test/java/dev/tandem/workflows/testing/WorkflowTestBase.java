package dev.tandem.workflows.testing;

import static org.junit.jupiter.api.Assertions.fail;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.DrainPolicy;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeRef;
import dev.tandem.workflows.model.NodeSetRef;
import dev.tandem.workflows.model.NodeSetSnapshot;
import dev.tandem.workflows.model.NodeSetSpecView;
import dev.tandem.workflows.model.NodeStatus;
import dev.tandem.workflows.model.PodTemplate;
import dev.tandem.workflows.model.SlurmSettings;
import dev.tandem.workflows.model.Tuning;
import dev.tandem.workflows.model.UpdateStrategy;
import dev.tandem.workflows.node.NodeLifecycleInput;
import dev.tandem.workflows.node.NodeLifecycleWorkflow;
import dev.tandem.workflows.nodeset.NodeSetWorkflow;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * A Temporal test environment (in-process, time skipping) with both workflows registered on the
 * {@code tandem} queue and a {@link FakeCluster} behind the activities.
 */
public abstract class WorkflowTestBase {
  protected static final String NS = "default";
  protected static final Tuning TUNING = new Tuning(1, 10, 4000, 200, 120, true);

  protected TestWorkflowEnvironment env;
  protected WorkflowClient client;
  protected FakeCluster cluster;

  @BeforeEach
  void startEnvironment() {
    env = TestWorkflowEnvironment.newInstance();
    for (String sa : List.of(Names.SA_NODESET, Names.SA_NODE, Names.SA_K8S_NODE, Names.SA_PHASE)) {
      env.registerSearchAttribute(sa, IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
    }
    cluster = new FakeCluster();
    TandemWorkflows.register(env.newWorker(Names.TASK_QUEUE), cluster);
    moreWorkers(env);
    env.start();
    client = env.getWorkflowClient();
  }

  /** Registers a test's own workers before the environment starts; none by default. */
  protected void moreWorkers(TestWorkflowEnvironment env) {}

  @AfterEach
  void stopEnvironment() {
    env.close();
  }

  protected static PodTemplate template(String revision) {
    return new PodTemplate(
        revision,
        "{\"spec\":{\"containers\":[{\"name\":\"slurmd\",\"image\":\"slurmd:" + revision + "\"}]}}",
        SlurmSettings.none());
  }

  protected static NodeSetSpecView spec(long generation, int replicas, String revision) {
    return spec(generation, replicas, revision, 1);
  }

  /** Waits until all {@code nodes} of the NodeSet run {@code revision} and are ready. */
  protected void awaitRolled(NodeSetWorkflow wf, String revision, int nodes) {
    await(
        "rolled to " + revision,
        600,
        () ->
            wf.status().nodes().stream().allMatch(n -> revision.equals(n.revision()))
                && allReady(wf, nodes));
  }

  /** {@code s} as the spec of another custom resource of the same name (another uid). */
  protected static NodeSetSpecView withUid(NodeSetSpecView s, String uid) {
    return new NodeSetSpecView(
        s.generation(),
        uid,
        s.replicas(),
        s.template(),
        s.updateStrategy(),
        s.updateDrain(),
        s.scaleDownDrain(),
        s.problems(),
        null,
        null);
  }

  /** A spec that rolls {@code maxUnavailable} nodes at a time. */
  protected static NodeSetSpecView spec(
      long generation, int replicas, String revision, int maxUnavailable) {
    return new NodeSetSpecView(
        generation,
        "uid-ns",
        replicas,
        template(revision),
        UpdateStrategy.rolling(Integer.toString(maxUnavailable)),
        DrainPolicy.waitForever(),
        DrainPolicy.waitForever(),
        List.of());
  }

  /**
   * How many events of {@code type} each workflow task of {@code workflowId} issued, for the tasks
   * that issued any, in history order.
   */
  protected List<Integer> commandsPerTask(String workflowId, EventType type) {
    List<Integer> perTask = new java.util.ArrayList<>();
    int current = 0;
    for (HistoryEvent e : client.fetchHistory(workflowId).getEvents()) {
      if (e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) {
        if (current > 0) {
          perTask.add(current);
        }
        current = 0;
      } else if (e.getEventType() == type) {
        current++;
      }
    }
    if (current > 0) {
      perTask.add(current);
    }
    return perTask;
  }

  protected NodeSetWorkflow startNodeSet(String name, NodeSetSpecView spec) {
    return startNodeSet(name, spec, TUNING);
  }

  protected NodeSetWorkflow startNodeSet(String name, NodeSetSpecView spec, Tuning tuning) {
    return TandemWorkflows.startNodeSet(client, new NodeSetRef(NS, name), spec, tuning);
  }

  protected NodeLifecycleWorkflow startNode(String nodeSet, int ordinal, String revision) {
    return startNode(nodeSet, ordinal, revision, TUNING);
  }

  protected NodeLifecycleWorkflow startNode(
      String nodeSet, int ordinal, String revision, Tuning tuning) {
    NodeRef ref = NodeRef.of(NS, nodeSet, ordinal);
    NodeLifecycleWorkflow wf =
        client.newWorkflowStub(
            NodeLifecycleWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(ref.workflowId())
                .setTaskQueue(Names.TASK_QUEUE)
                .build());
    WorkflowClient.start(
        wf::run,
        new NodeLifecycleInput(
            ref, template(revision), "uid-ns", DrainPolicy.waitForever(), tuning, null));
    return wf;
  }

  protected NodeLifecycleWorkflow node(String pod) {
    return client.newWorkflowStub(NodeLifecycleWorkflow.class, Names.nodeWorkflowId(NS, pod));
  }

  protected NodeStatus nodeStatus(String pod) {
    return node(pod).status();
  }

  protected NodeSetSnapshot nodeSetStatus(NodeSetWorkflow wf) {
    return wf.status();
  }

  /**
   * Lets virtual time pass one second at a time until {@code condition} holds; fails after {@code
   * maxSeconds} of virtual time. Bounded in count, and each step is fast in wall time.
   */
  protected void await(String what, long maxSeconds, BooleanSupplier condition) {
    for (long i = 0; i <= maxSeconds; i++) {
      if (condition.getAsBoolean()) {
        return;
      }
      env.sleep(Duration.ofSeconds(1));
    }
    fail("timed out after " + maxSeconds + "s (virtual) waiting for: " + what);
  }

  protected boolean phaseIs(String pod, NodePhase phase) {
    try {
      return nodeStatus(pod).phase() == phase;
    } catch (RuntimeException e) {
      return false; // not started yet
    }
  }

  protected boolean allReady(NodeSetWorkflow wf, int n) {
    return TandemWorkflows.allReady(wf.status(), n);
  }
}
