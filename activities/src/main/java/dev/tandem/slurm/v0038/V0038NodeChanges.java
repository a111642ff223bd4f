package dev.tandem.slurm.v0038;

import dev.tandem.slurm.SlurmNode;
import dev.tandem.slurm.SlurmNotFoundException;
import dev.tandem.slurm.SlurmRejectedException;
import dev.tandem.slurm.SlurmUnsupportedException;
import java.util.function.Function;

/**
 * Node state changes on Slurm 22.05, whose REST API cannot change nodes ({@code POST /node} is
 * 405): everything goes through {@code scontrol update} (see {@link Scontrol}).
 */
final class V0038NodeChanges {
  private final Scontrol scontrol;
  private final FutureNodes futureNodes;
  private final Function<String, SlurmNode> getNode;

  V0038NodeChanges(
      Scontrol scontrol, FutureNodes futureNodes, Function<String, SlurmNode> getNode) {
    this.scontrol = scontrol;
    this.futureNodes = futureNodes;
    this.getNode = getNode;
  }

  void drain(String node, String reason) {
    SlurmClientV0038.checkNodeName(node);
    scontrol.updateNode(node, "State=DRAIN", "Reason=" + checkReason(reason));
  }

  void undrain(String node) {
    SlurmClientV0038.checkNodeName(node);
    scontrol.updateNode(node, "State=UNDRAIN");
  }

  void resume(String node) {
    SlurmClientV0038.checkNodeName(node);
    try {
      scontrol.updateNode(node, "State=RESUME");
    } catch (SlurmRejectedException e) {
      // RESUME of a node that is neither drained nor down is "Invalid node state specified":
      // already resumed, which is what the caller wants.
      SlurmNode n = getNode.apply(node);
      if (n.drainFlag() || n.down()) {
        throw e;
      }
    }
  }

  void down(String node, String reason) {
    SlurmClientV0038.checkNodeName(node);
    scontrol.updateNode(node, "State=DOWN", "Reason=" + checkReason(reason));
  }

  /**
   * Removes the node record, by kind:
   *
   * <ol>
   *   <li>Unknown to Slurm (REST answers 2018; FUTURE nodes are hidden): nothing to delete, which
   *       is what a (retried) delete wants. Same rule as the v0.0.41+ adapters.
   *   <li>Dynamic ({@code DYNAMIC_NORM}, made by {@code slurmd -Z} or {@code scontrol create}) and
   *       not declared in slurm.conf: {@code scontrol delete NodeName=...}, once it is idle or
   *       down. The slurm.conf check matters: 22.05 deletes declared nodes too, static ones
   *       included.
   *   <li>Declared {@code State=FUTURE}: returned to FUTURE (it disappears from listings until its
   *       slurmd registers again), once idle or down.
   *   <li>Anything else (a static node, or no readable slurm.conf): refused as unsupported.
   * </ol>
   */
  void delete(String node) {
    SlurmClientV0038.checkNodeName(node);
    SlurmNode current;
    try {
      current = getNode.apply(node);
    } catch (SlurmNotFoundException e) {
      return;
    }
    boolean dynamic = current.hasFlag(DYNAMIC) && !futureNodes.declared(node).orElse(Boolean.FALSE);
    if (dynamic) {
      requireIdleOrDown(node, current);
      scontrol.deleteNode(node);
      return;
    }
    Boolean declaredFuture =
        futureNodes
            .declaredFuture(node)
            .orElseThrow(
                () ->
                    new SlurmUnsupportedException(
                        "delete node "
                            + node
                            + ": not a dynamic node, and without a readable slurm.conf"
                            + " (SLURM_CONF) Slurm 22.05's adapter cannot tell a FUTURE-declared"
                            + " node"));
    if (!declaredFuture) {
      throw new SlurmUnsupportedException(
          "delete node "
              + node
              + ": declared in slurm.conf without State=FUTURE; Slurm 22.05"
              + " cannot remove it (drain or down it instead)");
    }
    if (current.future()) {
      return;
    }
    requireIdleOrDown(node, current);
    scontrol.updateNode(node, "State=FUTURE");
  }

  /** Slurm's flag on nodes made at run time (22.05 REST: {@code state_flags}). */
  static final String DYNAMIC = "DYNAMIC_NORM";

  private static void requireIdleOrDown(String node, SlurmNode current) {
    if (!"idle".equals(current.state()) && !current.down()) {
      throw new SlurmRejectedException(
          0,
          "node is "
              + current.state()
              + " (jobs still hold it); cancel them or down the node first",
          "delete node " + node);
    }
  }

  private static String checkReason(String reason) {
    if (reason == null || reason.isBlank()) {
      throw new SlurmRejectedException(0, "a reason is required", "node state change");
    }
    if (reason.indexOf('\n') >= 0 || reason.indexOf('\r') >= 0 || reason.length() > 1000) {
      throw new SlurmRejectedException(
          0, "reason must be one line of at most 1000 characters", "node state change");
    }
    // scontrol strips one leading and one trailing double quote from a Reason= value (so a reason
    // ending in '"' lost it, and Slurm then never showed the reason Tandem set: the node was
    // drained again on every poll). Quoting the whole value makes scontrol keep it exactly.
    return "\"" + reason + "\"";
  }
}
