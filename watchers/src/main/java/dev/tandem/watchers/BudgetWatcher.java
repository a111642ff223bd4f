package dev.tandem.watchers;

import dev.tandem.k8s.PodLabels;
import dev.tandem.workflows.model.NodeSetRef;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.function.Consumer;

/**
 * Watches the PodDisruptionBudgets Tandem writes ({@code app.kubernetes.io/managed-by=tandem}) so
 * that one edited or deleted by someone else is repaired at once ({@link SlurmJobsBudget}), not at
 * the NodeSet informer's next resync: between the two, {@code kubectl drain} could evict a slurmd
 * pod with a running job. A budget whose labels were stripped leaves the selection and counts as
 * deleted. The NodeSet is read from the budget's name, which no edit can change. Tandem's own
 * writes come back here too and cost one read that finds nothing to do.
 */
final class BudgetWatcher extends InformerWatcher<PodDisruptionBudget> {
  private final KubernetesClient client;
  private final Consumer<NodeSetRef> touched;

  /**
   * @param touched told (on the informer's thread: must not block) which NodeSet's budget changed
   */
  BudgetWatcher(KubernetesClient client, WatcherMetrics metrics, Consumer<NodeSetRef> touched) {
    super("budget", metrics);
    this.client = client;
    this.touched = touched;
  }

  @Override
  protected SharedIndexInformer<PodDisruptionBudget> newInformer() {
    // No resync of its own: the NodeSet informer's resync ensures every budget anyway.
    return client
        .policy()
        .v1()
        .podDisruptionBudget()
        .inAnyNamespace()
        .withLabel(PodLabels.MANAGED_BY, PodLabels.MANAGED_BY_VALUE)
        .runnableInformer(0);
  }

  @Override
  protected void onUpdate(PodDisruptionBudget old, PodDisruptionBudget b, boolean resyncPass) {
    if (!resyncPass) {
      tell(b);
    }
  }

  @Override
  protected void onDelete(PodDisruptionBudget b, boolean unknownFinalState) {
    tell(b);
  }

  private void tell(PodDisruptionBudget b) {
    String set = PodLabels.budgetNodeSet(b.getMetadata().getName());
    if (set != null) {
      touched.accept(new NodeSetRef(b.getMetadata().getNamespace(), set));
    }
  }
}
