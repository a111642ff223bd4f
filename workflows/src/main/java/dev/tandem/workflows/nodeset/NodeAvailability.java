package dev.tandem.workflows.nodeset;

import dev.tandem.workflows.model.DrainReason;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeReport;
import dev.tandem.workflows.nodeset.NodeSetState.Entry;
import java.util.List;
import java.util.Set;

/**
 * Whether a node serves, from its last report, and why not in words.
 *
 * <p>A node is <em>available</em> when its workflow reports phase ready and Slurm serves it: Slurm
 * knows it, its base state is idle, allocated or mixed (not down, error, future or unknown), and it
 * carries none of the flags DRAIN, NOT_RESPONDING, FAIL, POWERED_DOWN or POWERING_DOWN. An
 * administrator's drain or a dead slurmd therefore makes a node unavailable although Tandem left it
 * in phase ready. Anything else (no report, a state this code does not know) counts as unavailable:
 * fail closed.
 */
final class NodeAvailability {
  private NodeAvailability() {}

  private static final Set<String> SERVING_STATES = Set.of("idle", "allocated", "mixed");
  private static final Set<String> NOT_SERVING_FLAGS =
      Set.of("DRAIN", "NOT_RESPONDING", "FAIL", "POWERED_DOWN", "POWERING_DOWN");

  /** Phase ready and Slurm serves it. */
  static boolean available(Entry e) {
    return e.report != null && e.report.phase() == NodePhase.READY && serves(e.report.slurmState());
  }

  /** Whether a Slurm state summary ({@code idle}, {@code idle+DRAIN}, ...) takes jobs. */
  static boolean serves(String slurmState) {
    if (slurmState == null || slurmState.isBlank()) {
      return false;
    }
    List<String> parts = List.of(slurmState.split("\\+"));
    if (!SERVING_STATES.contains(parts.get(0))) {
      return false;
    }
    for (String flag : parts.subList(1, parts.size())) {
      if (NOT_SERVING_FLAGS.contains(flag)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Why the node does not serve, e.g. {@code drained by an administrator: disk}, {@code down: Not
   * responding}, {@code not responding}, {@code draining (tandem:update: revision a -> b)}.
   */
  static String whyNot(Entry e) {
    NodeReport r = e.report;
    if (r == null) {
      return "no report yet";
    }
    String reason = r.reason() == null || r.reason().isBlank() ? null : r.reason();
    if (r.phase() != NodePhase.READY) {
      return r.phase().label() + (reason == null ? "" : " (" + reason + ")");
    }
    String st = r.slurmState() == null ? "unknown" : r.slurmState();
    List<String> parts = List.of(st.split("\\+"));
    String base = parts.get(0);
    List<String> flags = parts.subList(1, parts.size());
    if (base.equals("unknown") || base.isEmpty()) {
      return "unknown to Slurm";
    }
    if (base.equals("down") || base.equals("error")) {
      return base + ": " + (reason == null ? "no reason given" : reason);
    }
    if (flags.contains("NOT_RESPONDING")) {
      return "not responding";
    }
    if (flags.contains("DRAIN")) {
      if (reason == null) {
        return "drained (no reason given)";
      }
      return DrainReason.ownedByTandem(reason)
          ? "drained: " + reason
          : "drained by an administrator: " + reason;
    }
    if (base.equals("future")) {
      return "not in service in Slurm (future)";
    }
    if (flags.contains("FAIL")) {
      return "failing: " + (reason == null ? "no reason given" : reason);
    }
    if (flags.contains("POWERED_DOWN") || flags.contains("POWERING_DOWN")) {
      return "powered down";
    }
    return "Slurm state " + st;
  }
}
