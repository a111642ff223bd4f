package dev.tandem.devstack.kubelet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * The pod status the kubelet reports: phase, the five kubelet conditions, IPs (127.0.0.1: every pod
 * shares the host network here), start time and one containerStatus per container. The first
 * container (or the one named {@code slurmd}) is the process; other containers are reported running
 * alongside it. Sent as a strategic merge patch on {@code /status}, so conditions other components
 * own (merged by {@code type}) survive, as with a real kubelet.
 */
final class PodStatuses {
  private PodStatuses() {}

  static final ObjectMapper MAPPER = new ObjectMapper();
  static final String HOST_IP = "127.0.0.1";

  /** The container the process stands for. */
  static String mainContainer(Pod pod) {
    List<Container> cs = pod.getSpec().getContainers();
    return cs.stream()
        .filter(c -> "slurmd".equals(c.getName()))
        .findFirst()
        .orElse(cs.get(0))
        .getName();
  }

  static ObjectNode status(Pod pod, PodState s) {
    ObjectNode st = MAPPER.createObjectNode();
    st.put("phase", s.phase);
    boolean ready = "Running".equals(s.phase) && s.running();
    String notReadyReason = s.waitingReason != null ? s.waitingReason : "ContainersNotReady";
    String notReadyMessage =
        s.waitingMessage != null
            ? s.waitingMessage
            : "containers with unready status: [" + s.container + "]";
    ArrayNode conds = st.putArray("conditions");
    condition(conds, pod, "PodReadyToStartContainers", true, null, null);
    condition(conds, pod, "Initialized", true, null, null);
    condition(
        conds, pod, "Ready", ready, ready ? null : notReadyReason, ready ? null : notReadyMessage);
    condition(
        conds,
        pod,
        "ContainersReady",
        ready,
        ready ? null : notReadyReason,
        ready ? null : notReadyMessage);
    condition(conds, pod, "PodScheduled", true, null, null);
    st.put("hostIP", HOST_IP);
    st.putArray("hostIPs").addObject().put("ip", HOST_IP);
    if (!"Pending".equals(s.phase) || s.podStartTime != null) {
      st.put("podIP", HOST_IP);
      st.putArray("podIPs").addObject().put("ip", HOST_IP);
    }
    if (s.podStartTime != null) {
      st.put("startTime", ts(s.podStartTime));
    }
    ArrayNode css = st.putArray("containerStatuses");
    for (Container c : pod.getSpec().getContainers()) {
      boolean main = c.getName().equals(s.container);
      ObjectNode cs = css.addObject();
      cs.put("name", c.getName());
      cs.put("image", c.getImage());
      cs.put("imageID", "local://" + c.getImage());
      cs.put("restartCount", main ? s.restartCount : 0);
      ObjectNode state = cs.putObject("state");
      boolean running = main ? s.running() : s.podStartTime != null && s.finalTermination == null;
      if (s.finalTermination != null) {
        terminated(state, s.finalTermination);
        running = false;
      } else if (running) {
        Instant started =
            main && s.containerStartedAt != null ? s.containerStartedAt : s.podStartTime;
        state.putObject("running").put("startedAt", ts(started));
      } else {
        ObjectNode w = state.putObject("waiting");
        w.put("reason", main && s.waitingReason != null ? s.waitingReason : "ContainerCreating");
        if (main && s.waitingMessage != null) {
          w.put("message", s.waitingMessage);
        }
      }
      if (main && s.lastTermination != null) {
        terminated(cs.putObject("lastState"), s.lastTermination);
      } else {
        cs.putObject("lastState");
      }
      cs.put("ready", running && ready);
      cs.put("started", running);
      if (running || s.finalTermination != null) {
        cs.put(
            "containerID",
            "local://"
                + (main && s.process != null
                    ? String.valueOf(s.process.pid())
                    : "virtual-" + s.uid.substring(0, 8)));
      }
    }
    return st;
  }

  private static void terminated(ObjectNode parent, PodState.Termination t) {
    parent
        .putObject("terminated")
        .put("exitCode", t.exitCode())
        .put("reason", t.reason())
        .put("startedAt", ts(t.startedAt()))
        .put("finishedAt", ts(t.finishedAt()));
  }

  /** Keeps lastTransitionTime when the condition's status did not change. */
  private static void condition(
      ArrayNode conds, Pod pod, String type, boolean ok, String reason, String message) {
    String status = ok ? "True" : "False";
    String since = ts(Instant.now());
    if (pod.getStatus() != null && pod.getStatus().getConditions() != null) {
      for (PodCondition c : pod.getStatus().getConditions()) {
        if (type.equals(c.getType())
            && status.equals(c.getStatus())
            && c.getLastTransitionTime() != null) {
          since = c.getLastTransitionTime();
        }
      }
    }
    ObjectNode c = conds.addObject();
    c.put("type", type)
        .put("status", status)
        .putNull("lastProbeTime")
        .put("lastTransitionTime", since);
    if (reason != null) {
      c.put("reason", reason);
    }
    if (message != null) {
      c.put("message", message);
    }
  }

  /** True when the pod already shows {@code wanted} (ignoring fields the API may add). */
  static boolean alreadyShown(Pod pod, ObjectNode wanted) {
    JsonNode current =
        MAPPER.valueToTree(pod.getStatus() == null ? MAPPER.createObjectNode() : pod.getStatus());
    for (var it = wanted.fields(); it.hasNext(); ) {
      var e = it.next();
      JsonNode cur = current.get(e.getKey());
      if (e.getKey().equals("conditions")) {
        for (JsonNode w : e.getValue()) {
          if (!containsCondition(cur, w)) {
            return false;
          }
        }
      } else if (cur == null || !cur.equals(e.getValue())) {
        return false;
      }
    }
    return true;
  }

  private static boolean containsCondition(JsonNode conds, JsonNode wanted) {
    if (conds == null) {
      return false;
    }
    for (JsonNode c : conds) {
      if (c.path("type").equals(wanted.path("type"))) {
        return c.path("status").equals(wanted.path("status"))
            && c.path("reason").asText("").equals(wanted.path("reason").asText(""))
            && c.path("message").asText("").equals(wanted.path("message").asText(""));
      }
    }
    return false;
  }

  static String ts(Instant i) {
    return i.truncatedTo(ChronoUnit.SECONDS).toString();
  }
}
