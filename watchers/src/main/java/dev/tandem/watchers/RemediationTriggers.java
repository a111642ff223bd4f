package dev.tandem.watchers;

import dev.tandem.workflows.model.DrainReason;
import dev.tandem.workflows.model.NodeSetRef;
import dev.tandem.workflows.model.SlurmNodeView;
import dev.tandem.workflows.remediation.RemediationPolicy;
import dev.tandem.workflows.remediation.RemediationTrigger;
import dev.tandem.workflows.remediation.TriggerKind;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * What remediation triggers a Kubernetes node or a Slurm node calls for under a policy
 * (docs/remediation.md, "Triggers"); pure decisions, no state but a cache of compiled patterns.
 * {@link RemediationWatch} sends them.
 *
 * <p>Each trigger comes with a signature: what must clear before the same trouble triggers again.
 * It names the trouble, not its message ({@code NotReady}, {@code Condition:GpuUnhealthy}, {@code
 * k8s-1|Not responding}), so a message that changes while the trouble lasts (a counter in a
 * node-problem-detector message) sends nothing new.
 */
final class RemediationTriggers {
  private RemediationTriggers() {}

  /** Who watchers say sent their triggers. */
  static final String NODE_SOURCE = "node-watcher";

  static final String SLURM_SOURCE = "slurm-watcher";

  private static final Map<String, Optional<Pattern>> PATTERNS = new ConcurrentHashMap<>();

  /**
   * The policy that governs a Kubernetes node: that of the first NodeSet (sorted by {@code
   * <ns>/<name>}) among those whose slurmd pods run on it that enables remediation, as the
   * remediation workflow's target chooses it; disabled when none does.
   */
  static RemediationPolicy policyOf(
      Collection<NodeSetRef> nodeSets, Function<NodeSetRef, RemediationPolicy> lookup) {
    return nodeSets.stream()
        .sorted((a, b) -> a.toString().compareTo(b.toString()))
        .map(lookup)
        .filter(p -> p != null && p.enabled())
        .findFirst()
        .orElse(RemediationPolicy.disabled());
  }

  /**
   * Signature to trigger for a Kubernetes node: {@code NotReady} when Ready is False or Unknown
   * (the workflow waits out the threshold itself), {@code Condition:<Type>} for each of the
   * policy's conditions that is True. Empty when the policy is disabled.
   */
  static Map<String, RemediationTrigger> forNode(Node n, RemediationPolicy policy) {
    Map<String, RemediationTrigger> out = new LinkedHashMap<>();
    if (!policy.enabled() || n.getStatus() == null || n.getStatus().getConditions() == null) {
      return out;
    }
    for (NodeCondition c : n.getStatus().getConditions()) {
      if ("Ready".equals(c.getType())) {
        if (!"True".equals(c.getStatus())) {
          out.put("NotReady", trigger(TriggerKind.NOT_READY, c, NODE_SOURCE));
        }
      } else if (policy.conditions().contains(c.getType()) && "True".equals(c.getStatus())) {
        out.put("Condition:" + c.getType(), trigger(TriggerKind.CONDITION, c, NODE_SOURCE));
      }
    }
    return out;
  }

  /**
   * What of a node a remediation re-checks: Ready and the policy's conditions, by status only. A
   * change here is worth a {@code recheck}; a heartbeat is not.
   */
  static String health(Node n, RemediationPolicy policy) {
    StringBuilder b = new StringBuilder();
    if (n.getStatus() != null && n.getStatus().getConditions() != null) {
      for (NodeCondition c : n.getStatus().getConditions()) {
        if ("Ready".equals(c.getType()) || policy.conditions().contains(c.getType())) {
          b.append(c.getType()).append('=').append(c.getStatus()).append(';');
        }
      }
    }
    return b.toString();
  }

  /**
   * The trigger for a Slurm node drained or DOWN with a reason that is not Tandem's and that one of
   * the policy's {@code slurmReasons} finds (case-insensitive), or null. Its signature is {@code
   * <k8s-node>|<reason>}: once per distinct reason on that node.
   */
  static Map.Entry<String, RemediationTrigger> forSlurmNode(
      SlurmNodeView v, String k8sNode, RemediationPolicy policy) {
    if (!policy.enabled() || v == null || !v.known() || !(v.drainFlag() || v.down())) {
      return null;
    }
    String reason = v.reason();
    if (reason == null || reason.isBlank() || DrainReason.ownedByTandem(reason)) {
      return null;
    }
    if (!matches(reason, policy.slurmReasons())) {
      return null;
    }
    String detail = v.name() + " " + (v.down() ? "down" : "drained") + ": " + reason.trim();
    return Map.entry(
        k8sNode + "|" + reason.trim(),
        RemediationTrigger.of(TriggerKind.SLURM_REASON, detail, SLURM_SOURCE));
  }

  /**
   * Whether any pattern finds something in {@code reason}. A pattern that does not compile matches
   * nothing (validation reports it on the NodeSet; it must not stop the watcher).
   */
  static boolean matches(String reason, List<String> patterns) {
    for (String p : patterns) {
      Optional<Pattern> compiled = PATTERNS.computeIfAbsent(p, RemediationTriggers::compile);
      if (compiled.isPresent() && compiled.get().matcher(reason).find()) {
        return true;
      }
    }
    return false;
  }

  private static Optional<Pattern> compile(String p) {
    try {
      return Optional.of(
          Pattern.compile(p, Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE | Pattern.DOTALL));
    } catch (PatternSyntaxException | NullPointerException e) {
      return Optional.empty();
    }
  }

  private static RemediationTrigger trigger(TriggerKind kind, NodeCondition c, String source) {
    return RemediationTrigger.of(kind, K8sNodeWatcher.conditionText(c), source);
  }
}
