package dev.tandem.watchers;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.ClusterHealth;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.NodeSetRef;
import dev.tandem.workflows.model.NodeSetSpecView;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.Tuning;
import dev.tandem.workflows.nodeset.NodeSetInput;
import dev.tandem.workflows.remediation.BudgetStatus;
import dev.tandem.workflows.remediation.RemediationInput;
import dev.tandem.workflows.remediation.RemediationStep;
import dev.tandem.workflows.remediation.RemediationTrigger;
import dev.tandem.workflows.schedule.GroupMember;
import dev.tandem.workflows.schedule.PodGroupInput;
import dev.tandem.workflows.schedule.PodRequest;
import dev.tandem.workflows.schedule.PodScheduleInput;
import dev.tandem.workflows.schedule.PodScheduleWorkflow;
import dev.tandem.workflows.schedule.SchedulingConfig;
import dev.tandem.workflows.support.SearchAttributes;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.workflow.v1.WorkflowExecutionInfo;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** {@link WorkflowSignals} on a Temporal {@link WorkflowClient}. */
public final class TemporalWorkflowSignals implements WorkflowSignals {
  private final WorkflowClient client;
  private final Tuning tuning;
  private final SchedulingConfig scheduling;

  /** With the default scheduling configuration ({@link SchedulingConfig#defaults()}). */
  public TemporalWorkflowSignals(WorkflowClient client, Tuning tuning) {
    this(client, tuning, SchedulingConfig.defaults());
  }

  /**
   * @param scheduling how pods map to Slurm jobs; passed to every scheduling workflow it starts
   */
  public TemporalWorkflowSignals(
      WorkflowClient client, Tuning tuning, SchedulingConfig scheduling) {
    this.client = client;
    this.tuning = tuning;
    this.scheduling = scheduling;
  }

  @Override
  public void nodeSetSpec(NodeSetRef ref, NodeSetSpecView spec) {
    stubFor(ref)
        .signalWithStart(
            Names.SIGNAL_SPEC_CHANGED,
            new Object[] {spec},
            new Object[] {new NodeSetInput(ref, spec, tuning, null)});
  }

  @Override
  public void nodeSetDelete(NodeSetRef ref, NodeSetSpecView spec, NodeCommand command) {
    stubFor(ref)
        .signalWithStart(
            Names.SIGNAL_DELETE,
            new Object[] {command},
            new Object[] {new NodeSetInput(ref, spec, tuning, null)});
  }

  @Override
  public void nodeSetGone(NodeSetRef ref, NodeCommand command) {
    workflow(ref.workflowId(), Names.SIGNAL_DELETE, command);
  }

  @Override
  public boolean clusterHealth(NodeSetRef ref, ClusterHealth health) {
    return workflow(ref.workflowId(), Names.SIGNAL_CLUSTER_HEALTH, health);
  }

  @Override
  public boolean node(String namespace, String pod, String signal, Object payload) {
    return workflow(Names.nodeWorkflowId(namespace, pod), signal, payload);
  }

  @Override
  public void podGroupMember(String namespace, String group, GroupMember member) {
    String ref = namespace + "/" + group;
    WorkflowOptions.Builder o =
        WorkflowOptions.newBuilder()
            .setWorkflowId(Names.podGroupWorkflowId(namespace, group))
            .setTaskQueue(Names.TASK_QUEUE)
            .setStaticSummary("Pod group " + ref);
    if (tuning.searchAttributes()) {
      // One Keyword that never clashes with a single pod's <ns>/<pod>.
      o.setTypedSearchAttributes(
          io.temporal.common.SearchAttributes.newBuilder()
              .set(SearchAttributes.POD, namespace + "/group/" + group)
              .build());
    }
    client
        .newUntypedWorkflowStub("PodGroup", o.build())
        .signalWithStart(
            Names.SIGNAL_MEMBER_OBSERVED,
            new Object[] {member},
            new Object[] {new PodGroupInput(namespace, group, scheduling, tuning, null)});
  }

  @Override
  public void podSchedule(PodRequest request, PodView view) {
    String ref = request.namespace() + "/" + request.name();
    WorkflowOptions.Builder o =
        WorkflowOptions.newBuilder()
            .setWorkflowId(
                Names.scheduleWorkflowId(request.namespace(), request.name(), request.uid()))
            .setTaskQueue(Names.TASK_QUEUE)
            .setWorkflowTaskTimeout(PodScheduleWorkflow.TASK_TIMEOUT)
            .setStaticSummary("Pod " + ref);
    if (tuning.searchAttributes()) {
      o.setTypedSearchAttributes(
          io.temporal.common.SearchAttributes.newBuilder().set(SearchAttributes.POD, ref).build());
    }
    client
        .newUntypedWorkflowStub("PodSchedule", o.build())
        .signalWithStart(
            Names.SIGNAL_POD_OBSERVED,
            new Object[] {view},
            new Object[] {new PodScheduleInput(request, scheduling, tuning, null)});
  }

  @Override
  public void remediation(String k8sNode, RemediationTrigger trigger) {
    WorkflowOptions.Builder o =
        WorkflowOptions.newBuilder()
            .setWorkflowId(Names.remediationWorkflowId(k8sNode))
            .setTaskQueue(Names.TASK_QUEUE)
            .setStaticSummary("Remediation of node " + k8sNode);
    if (tuning.searchAttributes()) {
      o.setTypedSearchAttributes(
          io.temporal.common.SearchAttributes.newBuilder()
              .set(SearchAttributes.K8S_NODE, k8sNode)
              .build());
    }
    client
        .newUntypedWorkflowStub("Remediation", o.build())
        .signalWithStart(
            Names.SIGNAL_TRIGGER,
            new Object[] {trigger},
            new Object[] {new RemediationInput(k8sNode, null, tuning)});
  }

  @Override
  public void budget(String signal, Object payload) {
    client
        .newUntypedWorkflowStub(
            "RemediationBudget",
            WorkflowOptions.newBuilder()
                .setWorkflowId(Names.REMEDIATION_BUDGET_ID)
                .setTaskQueue(Names.TASK_QUEUE)
                .setStaticSummary("Remediation budget")
                .build())
        .signalWithStart(signal, new Object[] {payload}, new Object[] {null});
  }

  @Override
  public Optional<BudgetStatus> budgetStatus() {
    try {
      return Optional.of(
          client
              .newUntypedWorkflowStub(Names.REMEDIATION_BUDGET_ID)
              .query(Names.QUERY_STATUS, BudgetStatus.class));
    } catch (WorkflowNotFoundException e) {
      return Optional.empty();
    }
  }

  @Override
  public Optional<RemediationStep> remediationEnded(String k8sNode) {
    String id = Names.remediationWorkflowId(k8sNode);
    WorkflowExecutionInfo info;
    try {
      info =
          client
              .getWorkflowServiceStubs()
              .blockingStub()
              .describeWorkflowExecution(
                  DescribeWorkflowExecutionRequest.newBuilder()
                      .setNamespace(client.getOptions().getNamespace())
                      .setExecution(WorkflowExecution.newBuilder().setWorkflowId(id))
                      .build())
              .getWorkflowExecutionInfo();
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return Optional.empty();
      }
      throw e;
    }
    if (info.getStatus() != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED) {
      return Optional.empty();
    }
    // Closed: its result is in its history already, so this does not wait.
    WorkflowStub run =
        client.newUntypedWorkflowStub(
            id, Optional.of(info.getExecution().getRunId()), Optional.empty());
    try {
      return Optional.ofNullable(run.getResult(10, TimeUnit.SECONDS, RemediationStep.class));
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("no result of the closed workflow " + id + " within 10s", e);
    }
  }

  @Override
  public boolean workflow(String workflowId, String signal, Object payload) {
    try {
      WorkflowStub stub = client.newUntypedWorkflowStub(workflowId);
      if (payload == null) {
        stub.signal(signal); // a signal without arguments, e.g. recheck
      } else {
        stub.signal(signal, payload);
      }
      return true;
    } catch (WorkflowNotFoundException e) {
      return false;
    }
  }

  private WorkflowStub stubFor(NodeSetRef ref) {
    WorkflowOptions.Builder o =
        WorkflowOptions.newBuilder()
            .setWorkflowId(ref.workflowId())
            .setTaskQueue(Names.TASK_QUEUE)
            .setStaticSummary("NodeSet " + ref);
    if (tuning.searchAttributes()) {
      o.setTypedSearchAttributes(
          io.temporal.common.SearchAttributes.newBuilder()
              .set(SearchAttributes.NODESET, ref.toString())
              .build());
    }
    return client.newUntypedWorkflowStub("NodeSet", o.build());
  }
}
