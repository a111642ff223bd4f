package dev.tandem.watchers;

import dev.tandem.workflows.model.ClusterHealth;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.NodeSetRef;
import dev.tandem.workflows.model.NodeSetSpecView;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.remediation.BudgetStatus;
import dev.tandem.workflows.remediation.RemediationStep;
import dev.tandem.workflows.remediation.RemediationTrigger;
import dev.tandem.workflows.schedule.GroupMember;
import dev.tandem.workflows.schedule.PodRequest;
import java.util.Optional;

/**
 * What watchers send to workflows. One implementation talks to Temporal; tests record calls.
 * Methods may block (they run on the {@link Coalescer}'s threads, never in informer callbacks) and
 * throw to ask for a retry.
 */
public interface WorkflowSignals {

  /** {@code specChanged} to {@code nodeset/<ns>/<name>}, starting the workflow if needed. */
  void nodeSetSpec(NodeSetRef ref, NodeSetSpecView spec);

  /**
   * {@code delete} to the NodeSet workflow, starting it with {@code spec} if it does not run (it
   * must run to delete the pods and lift Tandem's finalizer).
   */
  void nodeSetDelete(NodeSetRef ref, NodeSetSpecView spec, NodeCommand command);

  /** {@code delete} to the NodeSet workflow only if it runs (the resource is already gone). */
  void nodeSetGone(NodeSetRef ref, NodeCommand command);

  /**
   * A signal to {@code node/<ns>/<pod>}; false if no such workflow runs (a node workflow is started
   * by its NodeSet, never by a watcher).
   */
  boolean node(String namespace, String pod, String signal, Object payload);

  /**
   * {@code clusterHealth} to {@code nodeset/<ns>/<name>}: a plain signal (never starts the
   * workflow); false if it does not run.
   */
  boolean clusterHealth(NodeSetRef ref, ClusterHealth health);

  /**
   * {@code podObserved} to the pod's scheduling workflow ({@code schedule/<ns>/<pod>/<uid>}),
   * starting it with {@code request} if it does not run (signal-with-start: a watcher that restarts
   * and sends again never starts a second one). Only for a pod that waits to be scheduled; a bound,
   * terminating or deleted pod gets a plain signal ({@link #workflow}).
   */
  void podSchedule(PodRequest request, PodView view);

  /**
   * {@code memberObserved} to the gang's workflow {@code schedule-group/<ns>/<group>}, starting it
   * if it does not run (signal-with-start, so every member reaches the same one).
   */
  void podGroupMember(String namespace, String group, GroupMember member);

  /**
   * A signal to any workflow by id (e.g. a placeholder job's owner); false if it does not run. A
   * null {@code payload} sends the signal without arguments (e.g. {@code recheck}).
   */
  boolean workflow(String workflowId, String signal, Object payload);

  /**
   * {@code trigger} to {@code remediation/<k8sNode>}, starting it if it does not run
   * (signal-with-start: a second trigger joins the running remediation; after one ended, it starts
   * a new run).
   */
  void remediation(String k8sNode, RemediationTrigger trigger);

  /**
   * {@code acquire} or {@code release} ({@link dev.tandem.workflows.remediation.SlotRequest},
   * {@link dev.tandem.workflows.remediation.SlotRelease}) to the budget {@code remediation-budget},
   * starting it if it does not run (signal-with-start).
   */
  void budget(String signal, Object payload);

  /** The budget's status query; empty if it does not run. */
  Optional<BudgetStatus> budgetStatus();

  /**
   * How the latest run of {@code remediation/<k8sNode>} ended, or empty while it runs or if there
   * never was one. A run that ended otherwise than by returning a step (terminated, timed out)
   * reads as empty.
   */
  Optional<RemediationStep> remediationEnded(String k8sNode);
}
