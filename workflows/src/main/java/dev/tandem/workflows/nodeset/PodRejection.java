package dev.tandem.workflows.nodeset;

import dev.tandem.workflows.model.NodeReport;
import dev.tandem.workflows.model.PodTemplate;
import dev.tandem.workflows.nodeset.NodeSetState.Entry;

/**
 * A spec revision whose pod the cluster refused as invalid (a field newer than the cluster, a value
 * it does not accept). Pure functions of {@link NodeSetState}.
 *
 * <ol>
 *   <li>A node workflow whose pod create was refused reports the revision and the one-line reason
 *       ({@link NodeReport#podRejectedRevision()}); if it is the spec's revision, the NodeSet
 *       remembers it ({@link #note}).
 *   <li>While the spec's revision is the rejected one, the rollout template is the <em>last good
 *       one</em>: the newest spec template some node's pod ran ({@link #noteGood}). Nodes moving to
 *       the rejected revision (one whose old pod was already deleted) are sent it, and new nodes
 *       start with it; without one, no node is started or updated until the spec changes.
 *   <li>The InvalidSpec condition is True with reason {@code PodRejected}, naming the revision, the
 *       field and the reason (and with reason {@code InvalidSpec} if a later spec is invalid too:
 *       the message says both).
 *   <li>A spec with another revision forgets the rejection: it is tried like any other.
 * </ol>
 */
final class PodRejection {
  private PodRejection() {}

  static final String REASON = "PodRejected";

  /** Remembers a rejection a node reports if it is of the spec's revision. */
  static void note(NodeSetState s, Entry e, NodeReport r) {
    String rev = r.podRejectedRevision();
    if (rev == null || s.spec == null || !rev.equals(s.spec.template().revision())) {
      return;
    }
    if (rev.equals(s.rejectedRevision)) {
      return;
    }
    s.rejectedRevision = rev;
    s.rejectedPod = e.pod;
    s.rejectedWhy = r.podRejected();
  }

  /** A new valid spec: a rejection of another revision no longer matters. */
  static void specAccepted(NodeSetState s) {
    if (s.rejectedRevision != null && !s.rejectedRevision.equals(s.spec.template().revision())) {
      s.rejectedRevision = null;
      s.rejectedPod = null;
      s.rejectedWhy = null;
    }
  }

  /** The spec's revision is rejected. */
  static boolean active(NodeSetState s) {
    return s.spec != null
        && s.rejectedRevision != null
        && s.rejectedRevision.equals(s.spec.template().revision());
  }

  /** The spec's template is good once a node's pod runs it (the cluster accepted it). */
  static void noteGood(NodeSetState s) {
    if (s.spec == null) {
      return;
    }
    String rev = s.spec.template().revision();
    if (rev.equals(s.rejectedRevision)) {
      return;
    }
    for (Entry e : NodeSetPlanner.active(s.nodes)) {
      if (e.report != null && rev.equals(e.report.revision())) {
        s.goodTemplate = s.spec.template();
        return;
      }
    }
  }

  /**
   * What nodes are created and rolled to: the spec's template, or while it is rejected the last
   * good one; null when it is rejected and there is no good one (then nothing is started).
   */
  static PodTemplate rolloutTemplate(NodeSetState s) {
    if (active(s)) {
      return s.goodTemplate;
    }
    return s.spec.template();
  }

  /** What the InvalidSpec condition says of the rejection, in one line. */
  static String message(NodeSetState s) {
    String serving =
        s.goodTemplate == null
            ? "no earlier revision to keep; waiting for a spec change"
            : "nodes stay at revision " + s.goodTemplate.revision();
    String msg =
        "revision "
            + s.rejectedRevision
            + ": the cluster rejected pod "
            + s.rejectedPod
            + ": "
            + s.rejectedWhy
            + "; "
            + serving;
    return NodeSetConditions.oneLine(msg);
  }
}
