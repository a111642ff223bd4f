package dev.tandem.k8s;

import dev.tandem.workflows.model.PodView;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodStatus;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;

/** Pod to {@link PodView}: what the lifecycle decides on, plus a note for humans. */
public final class PodViews {
  private PodViews() {}

  public static PodView of(Pod pod) {
    var meta = pod.getMetadata();
    PodStatus st = pod.getStatus();
    String revision = meta.getLabels() == null ? null : meta.getLabels().get(PodLabels.REVISION);
    return new PodView(
        true,
        meta.getName(),
        meta.getUid(),
        revision,
        st == null || st.getPhase() == null ? "Pending" : st.getPhase(),
        condition(st, "Ready"),
        pod.getSpec() == null ? null : pod.getSpec().getNodeName(),
        meta.getDeletionTimestamp() != null,
        instant(meta.getCreationTimestamp()),
        st == null ? null : instant(st.getStartTime()),
        message(st));
  }

  /** The ordinal label, or -1: sorts pods and tells NodeSet pods from strays. */
  public static int ordinal(Pod pod) {
    var labels = pod.getMetadata().getLabels();
    String o = labels == null ? null : labels.get(PodLabels.ORDINAL);
    try {
      return o == null ? -1 : Integer.parseInt(o);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private static boolean condition(PodStatus st, String type) {
    if (st == null || st.getConditions() == null) {
      return false;
    }
    for (PodCondition c : st.getConditions()) {
      if (type.equals(c.getType())) {
        return "True".equals(c.getStatus());
      }
    }
    return false;
  }

  /**
   * Why the pod is not running, in the order a human would look: the pod's own message (evicted), a
   * waiting or crashed container (ImagePullBackOff, CrashLoopBackOff), an unschedulable pod.
   */
  private static String message(PodStatus st) {
    if (st == null) {
      return null;
    }
    if (st.getMessage() != null && !st.getMessage().isBlank()) {
      return join(st.getReason(), st.getMessage());
    }
    String c = containerMessage(st.getInitContainerStatuses());
    if (c == null) {
      c = containerMessage(st.getContainerStatuses());
    }
    if (c != null) {
      return c;
    }
    if (st.getConditions() != null) {
      for (PodCondition pc : st.getConditions()) {
        if ("PodScheduled".equals(pc.getType()) && "False".equals(pc.getStatus())) {
          return join(pc.getReason(), pc.getMessage());
        }
      }
    }
    return null;
  }

  private static String containerMessage(List<ContainerStatus> statuses) {
    if (statuses == null) {
      return null;
    }
    for (ContainerStatus cs : statuses) {
      var state = cs.getState();
      if (state != null && state.getWaiting() != null && state.getWaiting().getReason() != null) {
        String r = state.getWaiting().getReason();
        if (!"ContainerCreating".equals(r) && !"PodInitializing".equals(r)) {
          return cs.getName() + ": " + join(r, state.getWaiting().getMessage());
        }
      }
      if (state != null && state.getTerminated() != null && !Boolean.TRUE.equals(cs.getReady())) {
        var t = state.getTerminated();
        if (t.getExitCode() != null && t.getExitCode() != 0) {
          return cs.getName()
              + ": exited "
              + t.getExitCode()
              + " "
              + join(t.getReason(), t.getMessage());
        }
      }
    }
    return null;
  }

  private static String join(String reason, String message) {
    String r = reason == null ? "" : reason;
    String m = message == null ? "" : message;
    String s = r.isEmpty() ? m : m.isEmpty() ? r : r + ": " + m;
    s = s.trim();
    return s.length() <= 300 ? s : s.substring(0, 297) + "...";
  }

  static Instant instant(String timestamp) {
    if (timestamp == null || timestamp.isBlank()) {
      return null;
    }
    try {
      return Instant.parse(timestamp);
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}
