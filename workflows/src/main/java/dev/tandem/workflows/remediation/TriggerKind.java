package dev.tandem.workflows.remediation;

import java.util.Optional;

/**
 * What started (or joined) a remediation. Spelled in payloads as the label, e.g. {@code NotReady}.
 */
public enum TriggerKind {
  /** The Kubernetes node's Ready condition is False or Unknown (waits out the threshold). */
  NOT_READY("NotReady"),
  /** A configured node condition is True, e.g. {@code GpuUnhealthy}, {@code KernelDeadlock}. */
  CONDITION("Condition"),
  /** A Slurm drain or DOWN whose reason matches the configured hardware patterns. */
  SLURM_REASON("SlurmReason"),
  /** An operator: {@code tandem remediate <node> --reason ...} or the {@code trigger} signal. */
  OPERATOR("Operator");

  private final String label;

  TriggerKind(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }

  /** Accepts the label or the enum name, any case. */
  public static Optional<TriggerKind> parse(String s) {
    if (s == null) {
      return Optional.empty();
    }
    String t = s.trim();
    for (TriggerKind k : values()) {
      if (k.label.equalsIgnoreCase(t) || k.name().equalsIgnoreCase(t.replace('-', '_'))) {
        return Optional.of(k);
      }
    }
    return Optional.empty();
  }

  static String labels() {
    StringBuilder b = new StringBuilder();
    for (TriggerKind k : values()) {
      b.append(b.length() == 0 ? "" : ", ").append(k.label);
    }
    return b.toString();
  }
}
