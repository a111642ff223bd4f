package dev.tandem.watchers;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.DrainReason;
import dev.tandem.workflows.model.SlurmNodeView;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Shows Slurm trouble that Tandem did not cause on the slurmd pod, where Kubernetes users look: an
 * administrator's drain or down, or a slurmd that stopped responding, becomes the annotations
 * {@code tandem.dev/slurm-state} and {@code tandem.dev/slurm-reason} and the pod condition {@code
 * SlurmNodeHealthy=False}. When Slurm clears it, the annotations go and the condition turns True.
 * Tandem's own drains are not mirrored: they are visible in the node's lifecycle already.
 *
 * <p>Writes are patches that touch only these fields: a JSON merge patch on the annotations and a
 * JSON patch on the one condition (guarded by a test of its type at that index, or, when the pod
 * had no conditions, of its resourceVersion), so the kubelet's own conditions are never
 * overwritten.
 */
public final class SlurmMirror {
  public static final String STATE = Names.PREFIX + "slurm-state";
  public static final String REASON = Names.PREFIX + "slurm-reason";
  public static final String CONDITION = "SlurmNodeHealthy";

  /** What the pod should show. {@code reason} is null when healthy. */
  record Desired(boolean healthy, String state, String reason, String conditionReason) {}

  private final KubernetesClient client;
  private final Clock clock;

  public SlurmMirror(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  static Desired desired(SlurmNodeView v) {
    if (v == null || !v.known() || "future".equals(v.state())) {
      return new Desired(true, null, null, null); // not registered yet: the lifecycle shows it
    }
    if (v.flags().contains("NOT_RESPONDING")) {
      String why = v.reason() == null ? "slurmd is not responding" : v.reason();
      return new Desired(false, v.summary(), why, "NotResponding");
    }
    boolean admin = v.reason() != null && !DrainReason.ownedByTandem(v.reason());
    if (v.down() && (admin || v.reason() == null)) {
      return new Desired(false, v.summary(), v.reason() == null ? "down" : v.reason(), "SlurmDown");
    }
    if (v.drainFlag() && admin) {
      return new Desired(false, v.summary(), v.reason(), "SlurmDrained");
    }
    return new Desired(true, null, null, null);
  }

  /** Brings the pod in line with the Slurm node; a no-op when it already is. */
  public void apply(String namespace, String pod, SlurmNodeView view) {
    Pod p = client.pods().inNamespace(namespace).withName(pod).get();
    if (p != null) {
      apply(p, desired(view));
    }
  }

  /**
   * Brings {@code p}, as read, in line; a write based on a stale read fails (422) and is retried.
   */
  void apply(Pod p, Desired d) {
    patchAnnotations(p, d);
    patchCondition(p, d);
  }

  private void patchAnnotations(Pod p, Desired d) {
    Map<String, String> a = p.getMetadata().getAnnotations();
    String state = a == null ? null : a.get(STATE);
    String reason = a == null ? null : a.get(REASON);
    if (Objects.equals(state, d.state()) && Objects.equals(reason, d.reason())) {
      return;
    }
    ObjectNode ann = JsonNodeFactory.instance.objectNode();
    ann.put(STATE, d.state()); // null removes it (merge patch)
    ann.put(REASON, d.reason());
    ObjectNode patch = JsonNodeFactory.instance.objectNode();
    patch.putObject("metadata").set("annotations", ann);
    resource(p).patch(PatchContext.of(PatchType.JSON_MERGE), patch.toString());
  }

  private void patchCondition(Pod p, Desired d) {
    List<PodCondition> conds =
        p.getStatus() == null || p.getStatus().getConditions() == null
            ? List.of()
            : p.getStatus().getConditions();
    int index = -1;
    for (int i = 0; i < conds.size(); i++) {
      if (CONDITION.equals(conds.get(i).getType())) {
        index = i;
      }
    }
    String status = d.healthy() ? "True" : "False";
    String reason = d.healthy() ? "SlurmNodeHealthy" : d.conditionReason();
    String message = d.healthy() ? "Slurm shows no problem with this node" : d.reason();
    if (index < 0 && d.healthy()) {
      return; // never unhealthy: no need to say it is healthy
    }
    if (index >= 0) {
      PodCondition c = conds.get(index);
      if (status.equals(c.getStatus())
          && Objects.equals(reason, c.getReason())
          && Objects.equals(message, c.getMessage())) {
        return;
      }
    }
    ObjectNode value = JsonNodeFactory.instance.objectNode();
    value.put("type", CONDITION);
    value.put("status", status);
    value.put("reason", reason);
    value.put("message", message);
    String now = clock.instant().toString();
    boolean flipped = index < 0 || !status.equals(conds.get(index).getStatus());
    value.put("lastTransitionTime", flipped ? now : conds.get(index).getLastTransitionTime());
    value.put("lastProbeTime", now);
    ArrayNode patch = JsonNodeFactory.instance.arrayNode();
    if (index >= 0) {
      patch
          .addObject()
          .put("op", "test")
          .put("path", "/status/conditions/" + index + "/type")
          .put("value", CONDITION);
      patch
          .addObject()
          .put("op", "replace")
          .put("path", "/status/conditions/" + index)
          .set("value", value);
    } else if (conds.isEmpty()) {
      // "add" on /status/conditions replaces a list that appeared since the read (the kubelet
      // writes Ready when the pod starts): only on the pod as it was read.
      patch
          .addObject()
          .put("op", "test")
          .put("path", "/metadata/resourceVersion")
          .put("value", p.getMetadata().getResourceVersion());
      ObjectNode op = patch.addObject().put("op", "add").put("path", "/status/conditions");
      op.putArray("value").add(value);
    } else {
      patch.addObject().put("op", "add").put("path", "/status/conditions/-").set("value", value);
    }
    try {
      resource(p).subresource("status").patch(PatchContext.of(PatchType.JSON), patch.toString());
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return;
      }
      throw e; // 422 (the list moved under us): the coalescer retries with a fresh read
    }
  }

  private io.fabric8.kubernetes.client.dsl.PodResource resource(Pod p) {
    return client
        .pods()
        .inNamespace(p.getMetadata().getNamespace())
        .withName(p.getMetadata().getName());
  }
}
