package dev.tandem.watchers;

import dev.tandem.k8s.PodLabels;
import dev.tandem.k8s.api.NodeSet;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetSpec;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetSpecBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PodDisruptionBudget {@code <nodeset>-slurm-jobs} that keeps Kubernetes from evicting a slurmd
 * pod that may run a Slurm job ({@code kubectl drain}, the cluster autoscaler, node upgrades):
 *
 * <ol>
 *   <li>It selects the NodeSet's pods ({@code tandem.dev/nodeset=<name>}) that do NOT carry {@code
 *       tandem.dev/evictable}, with {@code maxUnavailable: 0}: no eviction of those is ever
 *       allowed. The node workflow labels a pod evictable only while its node is drained in Slurm
 *       and runs no job, and removes the label before it lifts the drain. Fail closed: a pod whose
 *       state Tandem does not know is protected.
 *   <li>{@code unhealthyPodEvictionPolicy: IfHealthyBudget}: an unready pod is protected like the
 *       rest (its slurmd may still run jobs), where {@code AlwaysAllow} would let it go.
 *   <li>Owned by the NodeSet (controller), so it goes with the NodeSet.
 *   <li>{@link #ensure} creates it when absent and rewrites its spec, labels and owner when they
 *       drifted (someone edited it); otherwise it writes nothing. Called on every NodeSet event and
 *       resync, so a deleted or edited budget is back within a resync period.
 * </ol>
 */
final class SlurmJobsBudget {
  private static final Logger log = LoggerFactory.getLogger(SlurmJobsBudget.class);

  private final KubernetesClient client;

  SlurmJobsBudget(KubernetesClient client) {
    this.client = client;
  }

  /** Creates or repairs the budget of this NodeSet. */
  void ensure(GenericKubernetesResource nodeSet) {
    String ns = nodeSet.getMetadata().getNamespace();
    String name = PodLabels.budgetName(nodeSet.getMetadata().getName());
    PodDisruptionBudget want = desired(nodeSet);
    var resource = client.policy().v1().podDisruptionBudget().inNamespace(ns).withName(name);
    PodDisruptionBudget have = resource.get();
    if (have == null) {
      try {
        client.policy().v1().podDisruptionBudget().inNamespace(ns).resource(want).create();
        log.info("created PodDisruptionBudget {}/{}", ns, name);
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409) {
          throw e;
        }
        // Created meanwhile (another pass): the next event or resync checks it.
      }
      return;
    }
    if (matches(have, want)) {
      return;
    }
    Map<String, String> labels = new HashMap<>();
    if (have.getMetadata().getLabels() != null) {
      labels.putAll(have.getMetadata().getLabels());
    }
    labels.putAll(want.getMetadata().getLabels());
    have.getMetadata().setLabels(labels);
    have.getMetadata().setOwnerReferences(want.getMetadata().getOwnerReferences());
    have.setSpec(want.getSpec());
    try {
      // Guarded by the resourceVersion just read: a concurrent edit makes it 409, and the next
      // pass repairs what that edit left.
      client.policy().v1().podDisruptionBudget().inNamespace(ns).resource(have).update();
      log.info("repaired PodDisruptionBudget {}/{}", ns, name);
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409 && e.getCode() != 404) {
        throw e;
      }
    }
  }

  static PodDisruptionBudget desired(GenericKubernetesResource nodeSet) {
    String set = nodeSet.getMetadata().getName();
    return new PodDisruptionBudgetBuilder()
        .withNewMetadata()
        .withName(PodLabels.budgetName(set))
        .withNamespace(nodeSet.getMetadata().getNamespace())
        .withLabels(
            Map.of(PodLabels.MANAGED_BY, PodLabels.MANAGED_BY_VALUE, PodLabels.NODESET, set))
        .withOwnerReferences(owner(nodeSet))
        .endMetadata()
        .withSpec(spec(set))
        .build();
  }

  static PodDisruptionBudgetSpec spec(String nodeSet) {
    LabelSelector selector =
        new LabelSelectorBuilder()
            .withMatchLabels(Map.of(PodLabels.NODESET, nodeSet))
            .addNewMatchExpression()
            .withKey(PodLabels.EVICTABLE)
            .withOperator("DoesNotExist")
            .endMatchExpression()
            .build();
    return new PodDisruptionBudgetSpecBuilder()
        .withNewMaxUnavailable(0)
        .withSelector(selector)
        .withUnhealthyPodEvictionPolicy("IfHealthyBudget")
        .build();
  }

  private static OwnerReference owner(GenericKubernetesResource nodeSet) {
    return new OwnerReferenceBuilder()
        .withApiVersion(NodeSet.API_VERSION)
        .withKind(NodeSet.KIND)
        .withName(nodeSet.getMetadata().getName())
        .withUid(nodeSet.getMetadata().getUid())
        .withController(true)
        .withBlockOwnerDeletion(false)
        .build();
  }

  /** Same spec (as Tandem writes it), Tandem's labels present, the NodeSet as its only owner. */
  static boolean matches(PodDisruptionBudget have, PodDisruptionBudget want) {
    PodDisruptionBudgetSpec h = have.getSpec();
    PodDisruptionBudgetSpec w = want.getSpec();
    if (h == null
        || !Objects.equals(h.getMaxUnavailable(), w.getMaxUnavailable())
        || h.getMinAvailable() != null
        || !Objects.equals(h.getSelector(), w.getSelector())
        || !Objects.equals(h.getUnhealthyPodEvictionPolicy(), w.getUnhealthyPodEvictionPolicy())) {
      return false;
    }
    Map<String, String> labels = have.getMetadata().getLabels();
    if (labels == null
        || !labels.entrySet().containsAll(want.getMetadata().getLabels().entrySet())) {
      return false;
    }
    List<OwnerReference> owners = have.getMetadata().getOwnerReferences();
    return owners != null
        && owners.size() == 1
        && Objects.equals(
            owners.get(0).getUid(), want.getMetadata().getOwnerReferences().get(0).getUid())
        && Boolean.TRUE.equals(owners.get(0).getController());
  }
}
