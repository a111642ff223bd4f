package dev.tandem.k8s;

import dev.tandem.k8s.api.NodeSet;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import java.util.ArrayList;
import java.util.List;

/**
 * The ownerReferences of everything Tandem creates for a NodeSet (slurmd pods, and any other
 * dependent such as a PodDisruptionBudget): the NodeSet as controller, and an <em>anchor</em>, the
 * CustomResourceDefinition {@code nodesets.tandem.dev}.
 *
 * <p>Why two owners (docs/architecture.md, "NodeSet deletion and the second owner"): Kubernetes'
 * garbage collector deletes a dependent only when every owner is absent or being deleted in the
 * foreground. The CRD exists as long as Tandem is installed, so the collector never deletes a
 * slurmd pod whatever propagation policy a NodeSet is deleted with; it only strips the NodeSet's
 * reference. Tandem's NodeSet finalizer then drains the nodes, waits for their jobs and deletes the
 * pods itself. The NodeSet stays the controller ({@code kubectl drain} refuses pods without one);
 * the anchor blocks nothing ({@code blockOwnerDeletion=false}, so it needs no RBAC on the CRD's
 * finalizers under the OwnerReferencesPermissionEnforcement admission plugin).
 */
public final class Owners {
  private Owners() {}

  /** The anchor: the NodeSet CRD's name. */
  public static final String CRD_NAME = NodeSet.PLURAL + "." + NodeSet.GROUP;

  public static final String CRD_API_VERSION = "apiextensions.k8s.io/v1";
  public static final String CRD_KIND = "CustomResourceDefinition";

  /** The NodeSet as controller; blocks the NodeSet's foreground deletion until it is gone. */
  public static OwnerReference nodeSet(String name, String uid) {
    return new OwnerReferenceBuilder()
        .withApiVersion(NodeSet.API_VERSION)
        .withKind(NodeSet.KIND)
        .withName(name)
        .withUid(uid)
        .withController(true)
        .withBlockOwnerDeletion(true)
        .build();
  }

  /** The CRD {@code nodesets.tandem.dev} with the given uid; not a controller, blocks nothing. */
  public static OwnerReference anchor(String crdUid) {
    return new OwnerReferenceBuilder()
        .withApiVersion(CRD_API_VERSION)
        .withKind(CRD_KIND)
        .withName(CRD_NAME)
        .withUid(crdUid)
        .withController(false)
        .withBlockOwnerDeletion(false)
        .build();
  }

  /**
   * Both references, NodeSet first. A null {@code nodeSetUid} (not known) leaves the NodeSet out;
   * the anchor is always there.
   */
  public static List<OwnerReference> of(String nodeSetName, String nodeSetUid, String crdUid) {
    List<OwnerReference> refs = new ArrayList<>(2);
    if (nodeSetUid != null) {
      refs.add(nodeSet(nodeSetName, nodeSetUid));
    }
    refs.add(anchor(crdUid));
    return refs;
  }

  /** Whether {@code r} points at the NodeSet CRD (any uid). */
  public static boolean isAnchor(OwnerReference r) {
    return r != null
        && CRD_KIND.equals(r.getKind())
        && CRD_NAME.equals(r.getName())
        && r.getApiVersion() != null
        && r.getApiVersion().startsWith("apiextensions.k8s.io/");
  }

  /** Whether {@code refs} hold the anchor with exactly {@code crdUid}. */
  public static boolean hasAnchor(List<OwnerReference> refs, String crdUid) {
    return refs != null && refs.stream().anyMatch(r -> isAnchor(r) && crdUid.equals(r.getUid()));
  }

  /** Whether a NodeSet is the controller in {@code refs}: the mark of a pod Tandem created. */
  public static boolean controlledByNodeSet(List<OwnerReference> refs) {
    return refs != null
        && refs.stream()
            .anyMatch(
                r ->
                    Boolean.TRUE.equals(r.getController())
                        && NodeSet.KIND.equals(r.getKind())
                        && r.getApiVersion() != null
                        && r.getApiVersion().startsWith(NodeSet.GROUP + "/"));
  }

  /**
   * {@code refs} with the anchor for {@code crdUid} and without any other anchor (one with the uid
   * of an earlier, since re-created CRD dangles and would not hold anything).
   */
  public static List<OwnerReference> withAnchor(List<OwnerReference> refs, String crdUid) {
    List<OwnerReference> out = new ArrayList<>();
    if (refs != null) {
      refs.stream().filter(r -> !isAnchor(r)).forEach(out::add);
    }
    out.add(anchor(crdUid));
    return out;
  }
}
