package dev.tandem.watchers;

import dev.tandem.workflows.Names;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/** Records what the watchers would send to Temporal. */
final class RecordingSignals implements WorkflowSignals {
  record Sent(String target, String signal, Object payload) {}

  /** The payload of a {@code podSchedule} (signal-with-start) record. */
  record ScheduleStart(PodRequest request, PodView view) {}

  private final List<Sent> sent = new ArrayList<>();
  final Set<String> running = ConcurrentHashMap.newKeySet();
  volatile boolean fail;

  /** Workflow ids {@link #workflow} answers false for (no such workflow runs). */
  final Set<String> notRunning = ConcurrentHashMap.newKeySet();

  /** Per Kubernetes node: how its last remediation ended ({@link #remediationEnded}). */
  final Map<String, RemediationStep> remediationsEnded = new ConcurrentHashMap<>();

  @Override
  public synchronized void remediation(String k8sNode, RemediationTrigger trigger) {
    check();
    sent.add(new Sent(Names.remediationWorkflowId(k8sNode), Names.SIGNAL_TRIGGER, trigger));
  }

  /** What {@link #budgetStatus} answers; null: no budget runs. */
  volatile BudgetStatus budget;

  @Override
  public synchronized void budget(String signal, Object payload) {
    check();
    sent.add(new Sent(Names.REMEDIATION_BUDGET_ID, signal, payload));
  }

  @Override
  public Optional<BudgetStatus> budgetStatus() {
    check();
    return Optional.ofNullable(budget);
  }

  @Override
  public Optional<RemediationStep> remediationEnded(String k8sNode) {
    check();
    return Optional.ofNullable(remediationsEnded.get(k8sNode));
  }

  @Override
  public synchronized void nodeSetSpec(NodeSetRef ref, NodeSetSpecView spec) {
    check();
    sent.add(new Sent(ref.workflowId(), "specChanged", spec));
  }

  @Override
  public synchronized void nodeSetDelete(NodeSetRef ref, NodeSetSpecView spec, NodeCommand c) {
    check();
    sent.add(new Sent(ref.workflowId(), "delete", c));
  }

  @Override
  public synchronized void nodeSetGone(NodeSetRef ref, NodeCommand c) {
    check();
    sent.add(new Sent(ref.workflowId(), "gone", c));
  }

  @Override
  public synchronized boolean clusterHealth(NodeSetRef ref, ClusterHealth health) {
    check();
    sent.add(new Sent(ref.workflowId(), "clusterHealth", health));
    return true;
  }

  @Override
  public synchronized boolean node(String ns, String pod, String signal, Object payload) {
    check();
    sent.add(new Sent("node/" + ns + "/" + pod, signal, payload));
    return true;
  }

  @Override
  public synchronized void podSchedule(PodRequest r, PodView view) {
    check();
    sent.add(
        new Sent(
            Names.scheduleWorkflowId(r.namespace(), r.name(), r.uid()),
            "podSchedule",
            new ScheduleStart(r, view)));
  }

  @Override
  public synchronized void podGroupMember(String ns, String group, GroupMember member) {
    check();
    sent.add(new Sent(Names.podGroupWorkflowId(ns, group), "podGroupMember", member));
  }

  @Override
  public synchronized boolean workflow(String id, String signal, Object payload) {
    check();
    sent.add(new Sent(id, signal, payload));
    return !notRunning.contains(id);
  }

  private void check() {
    if (fail) {
      throw new IllegalStateException("Temporal unavailable (test)");
    }
  }

  synchronized List<Sent> all() {
    return List.copyOf(sent);
  }

  synchronized List<Sent> matching(Predicate<Sent> p) {
    return sent.stream().filter(p).toList();
  }

  /** Every signal {@code signal} sent, in order. */
  List<Sent> named(String signal) {
    return matching(s -> s.signal().equals(signal));
  }

  /**
   * The last {@code clusterHealth} about {@code component} sent to workflow {@code id}, or null.
   */
  ClusterHealth lastHealth(String id, String component) {
    List<Sent> got =
        matching(
            s ->
                s.target().equals(id)
                    && s.payload() instanceof ClusterHealth h
                    && h.component().equals(component));
    return got.isEmpty() ? null : (ClusterHealth) got.get(got.size() - 1).payload();
  }

  synchronized void clear() {
    sent.clear();
  }
}
