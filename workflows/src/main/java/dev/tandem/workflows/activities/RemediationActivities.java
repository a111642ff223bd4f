package dev.tandem.workflows.activities;

import dev.tandem.workflows.model.NodeRef;
import dev.tandem.workflows.remediation.HealthCheckResult;
import dev.tandem.workflows.remediation.NodeHealth;
import dev.tandem.workflows.remediation.RemediationTarget;
import dev.tandem.workflows.remediation.ReplaceMode;
import dev.tandem.workflows.remediation.SlotRelease;
import dev.tandem.workflows.remediation.SlotRequest;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;
import java.util.List;

/**
 * What a remediation does to Kubernetes, Slurm and the budget. Implemented in {@code activities}.
 * Drains and undrains are not here: the remediation workflow asks the node workflows (signal {@code
 * drain}/{@code undrain}, owner {@code remediation}), which own every Slurm drain. Jobs and forced
 * DOWN go through {@link SlurmActivities}.
 *
 * <p>Every method is idempotent. Fail closed: what cannot be read fails the call (retried) or, in
 * {@link #check}, is a problem; it is never taken for healthy.
 */
@ActivityInterface(namePrefix = "Remediation")
public interface RemediationActivities {

  /** The node, its Tandem slurmd pods, their NodeSets and the policy (see RemediationTarget). */
  @ActivityMethod
  RemediationTarget target(String k8sNode);

  /**
   * The re-check of {@code target.k8sNode()} and of the Slurm nodes named in {@code target}
   * (wherever their pods run now), against {@code target.policy()}'s conditions.
   */
  @ActivityMethod
  NodeHealth check(RemediationTarget target);

  /** {@code acquire} to the budget workflow, starting it if it does not run. */
  @ActivityMethod
  void requestSlot(SlotRequest request);

  /** {@code release} to the budget workflow, starting it if it does not run. */
  @ActivityMethod
  void releaseSlot(SlotRelease release);

  /**
   * Deletes those of {@code nodes}' slurmd pods that still run on {@code k8sNode} (their NodeSet
   * recreates them); returns the pods deleted now.
   */
  @ActivityMethod
  List<String> restartSlurmdPods(String k8sNode, List<NodeRef> nodes);

  /**
   * Asks for a reboot of the node through the configured reboot action (default: annotation {@code
   * tandem.dev/reboot-requested=<token>} for a node agent). Asking twice with the same token is one
   * request.
   */
  @ActivityMethod
  void requestReboot(String k8sNode, String token, String reason);

  /** Whether the reboot asked with {@code token} has been carried out (per the reboot action). */
  @ActivityMethod
  boolean rebootDone(String k8sNode, String token);

  /**
   * Cordons the node (annotation {@code tandem.dev/cordon-reason} = {@code reason}) and then marks
   * it for the provider ({@code tandem.dev/replace-requested}) or deletes the Node object.
   */
  @ActivityMethod
  void replaceNode(String k8sNode, ReplaceMode mode, String reason);

  /** A Kubernetes Event on the Node object (best effort: never fails the caller). */
  @ActivityMethod
  void nodeEvent(String k8sNode, String type, String reason, String message);

  /**
   * Starts the policy's health check on {@code target}'s Slurm nodes: creates reservation {@code
   * tandem-check-<k8sNode>} over them (flags MAINT, IGNORE_JOBS; for the check's timeout plus a
   * margin), then submits one job {@code tandem-check-<token>} in it with the policy's script, or
   * finds the one submitted before with that token. Returns the job id.
   */
  @ActivityMethod
  long startHealthCheck(RemediationTarget target, String token);

  /**
   * The health-check job's outcome: RUNNING (pending or running), PASSED (completed, exit 0) or
   * FAILED (anything else, and a job Slurm no longer knows).
   */
  @ActivityMethod
  HealthCheckResult healthCheckResult(long jobId);

  /** Cancels the job if it still runs and deletes the node's check reservation. Idempotent. */
  @ActivityMethod
  void endHealthCheck(String k8sNode, long jobId);
}
