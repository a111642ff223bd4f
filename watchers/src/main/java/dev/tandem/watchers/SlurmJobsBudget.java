package dev.tandem.watchers;

import dev.tandem.k8s.CrdAnchor;
import dev.tandem.k8s.Owners;
import dev.tandem.k8s.PodLabels;
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
import java.util.HashSet;
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
 *   <li>Owned by the NodeSet (controller) and anchored to the CRD {@code nodesets.tandem.dev} like
 *       the pods ({@link Owners}): the garbage collector leaves it in place while a NodeSet being
 *       deleted (in the foreground too) drains its nodes, and Tandem deletes it when it releases
 *       the NodeSet. If the CRD cannot be read, the budget is created with the NodeSet alone
 *       (protection now beats the anchor) and completed on a later pass.
 *   <li>{@link #ensure} creates it when absent and rewrites its spec, labels and owner when they
 *       drifted (someone edited it); otherwise it writes nothing. Called on every NodeSet event and
 *       resync, so a deleted or edited budget is back within a resync period.
 * </ol>
 */
final class SlurmJobsBudget {
  private static final Logger log = LoggerFactory.getLogger(SlurmJobsBudget.class);

  private final KubernetesClient client;
  private final CrdAnchor anchor;

  /**
   * Whether this API server keeps {@code spec.unhealthyPodEvictionPolicy}, learned from what it
   * stored: Kubernetes 1.26 drops the field (alpha there, its feature gate off by default), and a
   * comparison that counted it would rewrite the budget on every NodeSet event and resync.
   */
  private volatile boolean policyKept = true;

  SlurmJobsBudget(KubernetesClient client, CrdAnchor anchor) {
    this.client = client;
    this.anchor = anchor;
  }

  /** Creates or repairs the budget of this NodeSet. */
  void ensure(GenericKubernetesResource nodeSet) {
    String ns = nodeSet.getMetadata().getNamespace();
    String name = PodLabels.budgetName(nodeSet.getMetadata().getName());
    var resource = client.policy().v1().podDisruptionBudget().inNamespace(ns).withName(name);
    PodDisruptionBudget have = resource.get();
    String anchorUid = anchorUid();
    if (anchorUid == null && have != null) {
      // The CRD cannot be read just now: keep the anchor the budget has rather than strip it.
      anchorUid =
          owners(have).stream()
              .filter(Owners::isAnchor)
              .map(OwnerReference::getUid)
              .findFirst()
              .orElse(null);
    }
    PodDisruptionBudget want = desired(nodeSet, anchorUid);
    if (have == null) {
      try {
        learn(
            client.policy().v1().podDisruptionBudget().inNamespace(ns).resource(want).create(),
            want);
        log.info("created PodDisruptionBudget {}/{}", ns, name);
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409) {
          throw e;
        }
        // Created meanwhile (another pass): the next event or resync checks it.
      }
      return;
    }
    if (matches(have, want, policyKept)) {
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
      learn(
          client.policy().v1().podDisruptionBudget().inNamespace(ns).resource(have).update(), want);
      log.info("repaired PodDisruptionBudget {}/{}", ns, name);
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409 && e.getCode() != 404) {
        throw e;
      }
    }
  }

  private String anchorUid() {
    try {
      return anchor.uid();
    } catch (CrdAnchor.Unavailable e) {
      log.warn("PodDisruptionBudgets without their CRD anchor for now: {}", e.getMessage());
      return null;
    }
  }

  static PodDisruptionBudget desired(GenericKubernetesResource nodeSet, String anchorUid) {
    String set = nodeSet.getMetadata().getName();
    return new PodDisruptionBudgetBuilder()
        .withNewMetadata()
        .withName(PodLabels.budgetName(set))
        .withNamespace(nodeSet.getMetadata().getNamespace())
        .withLabels(
            Map.of(PodLabels.MANAGED_BY, PodLabels.MANAGED_BY_VALUE, PodLabels.NODESET, set))
        .withOwnerReferences(owners(nodeSet, anchorUid))
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

  /**
   * The NodeSet as controller (blocking nothing: a budget has no reason to hold up a foreground
   * deletion, and blocking would need RBAC on nodesets/finalizers) and the CRD anchor if known.
   */
  private static List<OwnerReference> owners(GenericKubernetesResource nodeSet, String anchorUid) {
    OwnerReference set =
        new OwnerReferenceBuilder(
                Owners.nodeSet(nodeSet.getMetadata().getName(), nodeSet.getMetadata().getUid()))
            .withBlockOwnerDeletion(false)
            .build();
    return anchorUid == null ? List.of(set) : List.of(set, Owners.anchor(anchorUid));
  }

  /** Notes whether the server kept the eviction policy it was sent ({@link #policyKept}). */
  private void learn(PodDisruptionBudget stored, PodDisruptionBudget sent) {
    if (policyKept && dropsPolicy(stored, sent)) {
      policyKept = false;
      log.info(
          "this API server drops spec.unhealthyPodEvictionPolicy of PodDisruptionBudgets (Kubernetes"
              + " 1.26): budgets are compared without it");
    }
  }

  static boolean dropsPolicy(PodDisruptionBudget stored, PodDisruptionBudget sent) {
    return stored != null
        && stored.getSpec() != null
        && stored.getSpec().getUnhealthyPodEvictionPolicy() == null
        && sent.getSpec().getUnhealthyPodEvictionPolicy() != null;
  }

  /**
   * Same spec and owners as Tandem writes them, and Tandem's labels present; the eviction policy
   * only when the server keeps it.
   */
  static boolean matches(PodDisruptionBudget have, PodDisruptionBudget want, boolean policyKept) {
    PodDisruptionBudgetSpec h = have.getSpec();
    PodDisruptionBudgetSpec w = want.getSpec();
    if (h == null
        || !Objects.equals(h.getMaxUnavailable(), w.getMaxUnavailable())
        || h.getMinAvailable() != null
        || !Objects.equals(h.getSelector(), w.getSelector())
        || (policyKept
            && !Objects.equals(
                h.getUnhealthyPodEvictionPolicy(), w.getUnhealthyPodEvictionPolicy()))) {
      return false;
    }
    Map<String, String> labels = have.getMetadata().getLabels();
    if (labels == null
        || !labels.entrySet().containsAll(want.getMetadata().getLabels().entrySet())) {
      return false;
    }
    return Objects.equals(new HashSet<>(owners(have)), new HashSet<>(owners(want)));
  }

  private static List<OwnerReference> owners(PodDisruptionBudget b) {
    List<OwnerReference> o = b.getMetadata().getOwnerReferences();
    return o == null ? List.of() : o;
  }
}
