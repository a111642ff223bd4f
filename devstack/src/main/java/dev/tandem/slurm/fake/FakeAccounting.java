package dev.tandem.slurm.fake;

import java.util.Map;
import java.util.Set;

/**
 * The accounting database the fake answers from: the QOS and accounts {@code
 * scripts/slurm-local.sh} registers (docs/slurm-local.md, "Accounting"), with {@code
 * PreemptType=preempt/qos} and {@code AccountingStorageEnforce=associations,limits,qos}.
 */
final class FakeAccounting {
  private FakeAccounting() {}

  /**
   * A QOS: its priority and the QOS whose jobs its jobs may preempt (all with PreemptMode REQUEUE).
   */
  record Qos(String name, int priority, Set<String> preempts) {}

  static final String DEFAULT_QOS = "normal";

  /** The default account of the submitting user (root's in the local Slurm). */
  static final String DEFAULT_ACCOUNT = "k8s";

  static final Map<String, Qos> QOS =
      Map.of(
          "low", new Qos("low", 0, Set.of()),
          "normal", new Qos("normal", 10, Set.of("low")),
          "high", new Qos("high", 100, Set.of("low", "normal")));

  static final Set<String> ACCOUNTS = Set.of("root", "k8s", "research", "ml", "physics");

  static Qos qos(FakeJob j) {
    return QOS.get(j.qos);
  }
}
