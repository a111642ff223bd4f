package dev.tandem.activities;

import dev.tandem.workflows.Names;
import io.fabric8.kubernetes.api.model.Node;
import java.util.Map;

/**
 * The default reboot action: annotation {@code tandem.dev/reboot-requested=<token>} on the Node for
 * a node agent (the local kubelet implements it); done when the agent sets {@code
 * tandem.dev/rebooted=<token>}.
 */
final class AnnotationReboot implements RebootAction {
  private final NodeWrites nodes;

  AnnotationReboot(NodeWrites nodes) {
    this.nodes = nodes;
  }

  @Override
  public void request(String node, String token, String reason) {
    if (!nodes.annotate(node, Map.of(Names.ANNOTATION_REBOOT_REQUESTED, token))) {
      throw KubeCalls.rejected("cannot ask for a reboot of node " + node + ": it does not exist");
    }
  }

  @Override
  public boolean done(String node, String token) {
    return rebooted(nodes.get(node), token);
  }

  /** The node agent reported the reboot of {@code token}. */
  static boolean rebooted(Node n, String token) {
    return n != null
        && n.getMetadata().getAnnotations() != null
        && token != null
        && token.equals(n.getMetadata().getAnnotations().get(Names.ANNOTATION_REBOOTED));
  }

  @Override
  public String describe() {
    return "annotation";
  }
}
