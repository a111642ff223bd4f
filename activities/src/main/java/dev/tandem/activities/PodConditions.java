package dev.tandem.activities;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.k8s.Json;
import dev.tandem.workflows.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Sets one condition in a pod's status, as the kubelet and kube-scheduler do: the condition of the
 * same type is replaced, all others are kept; {@code lastTransitionTime} moves only when the status
 * changes (the caller's time, else now); an identical condition is not written again. Only the pod
 * with the given uid is touched, and the write is a JSON patch of {@code /status} that also sets
 * the read resourceVersion, so a concurrent status change (the kubelet's) gives 409 and a re-read
 * instead of being overwritten.
 */
final class PodConditions {
  private final KubernetesClient client;
  private final Clock clock;

  PodConditions(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  void set(String namespace, String name, String uid, Condition c) {
    if (c == null || c.type() == null || c.status() == null) {
      throw KubeCalls.rejected("setPodCondition needs a condition type and status, got " + c);
    }
    String what = "set condition " + c.type() + " of pod " + namespace + "/" + name;
    KubeCalls.withConflictRetry(
        what,
        () -> {
          Pod p = client.pods().inNamespace(namespace).withName(name).get();
          if (p == null || (uid != null && !uid.equals(p.getMetadata().getUid()))) {
            return null;
          }
          List<PodCondition> have =
              p.getStatus() == null || p.getStatus().getConditions() == null
                  ? List.of()
                  : p.getStatus().getConditions();
          PodCondition old =
              have.stream().filter(x -> c.type().equals(x.getType())).findFirst().orElse(null);
          if (old != null
              && c.status().equals(old.getStatus())
              && Objects.equals(c.reason(), old.getReason())
              && Objects.equals(c.message(), old.getMessage())) {
            return null;
          }
          String transition =
              old != null && c.status().equals(old.getStatus())
                  ? old.getLastTransitionTime()
                  : time(c.lastTransitionTime());
          PodCondition next =
              new PodConditionBuilder()
                  .withType(c.type())
                  .withStatus(c.status())
                  .withReason(c.reason())
                  .withMessage(c.message())
                  .withLastTransitionTime(transition)
                  .build();
          List<PodCondition> all = new ArrayList<>(have);
          if (old == null) {
            all.add(next);
          } else {
            all.set(all.indexOf(old), next);
          }
          ArrayNode patch = JsonNodeFactory.instance.arrayNode();
          patch
              .addObject()
              .put("op", "replace")
              .put("path", "/metadata/resourceVersion")
              .put("value", p.getMetadata().getResourceVersion());
          if (p.getStatus() == null) {
            patch
                .addObject()
                .put("op", "add")
                .put("path", "/status")
                .set("value", Json.MAPPER.createObjectNode().set("conditions", tree(all)));
          } else {
            patch
                .addObject()
                .put("op", "add") // replaces an existing member, creates a missing one
                .put("path", "/status/conditions")
                .set("value", tree(all));
          }
          try {
            patchStatus(namespace, name, PatchType.JSON, Json.SERIALIZATION.asJson(patch));
          } catch (KubernetesClientException e) {
            if (!KubeCalls.is(e, 404)) {
              throw e;
            }
          }
          return null;
        });
  }

  /**
   * Sets a condition the caller knows is changing status (Tandem's {@code SlurmScheduled=True} as
   * it binds the pod: before, the condition was absent or False; {@code SlurmPreempted} or {@code
   * SlurmJobEnded} as it evicts it: absent before), in one request, without a read: a strategic
   * merge patch of {@code /status} whose conditions merge by type (the others stay, the kubelet's
   * included) and which carries the pod's uid. The API server refuses to change a uid (422, {@code
   * field is immutable}), so the patch never lands on another pod of the same name; the kubelet
   * writes its status patches the same way. The transition time is the condition's (or now): a
   * retry after a lost answer moves it by that much. A pod that is gone (404) or has another uid
   * (422) is left alone, as in {@link #set}.
   */
  void setChanging(String namespace, String name, String uid, Condition c) {
    if (c == null || c.type() == null || c.status() == null || uid == null) {
      throw KubeCalls.rejected("setChanging needs a uid, a condition type and status, got " + c);
    }
    ObjectNode patch = Json.MAPPER.createObjectNode();
    patch.putObject("metadata").put("uid", uid);
    ObjectNode cond = patch.putObject("status").putArray("conditions").addObject();
    cond.put("type", c.type()).put("status", c.status());
    if (c.reason() != null) {
      cond.put("reason", c.reason());
    }
    if (c.message() != null) {
      cond.put("message", c.message());
    }
    cond.put("lastTransitionTime", time(c.lastTransitionTime()));
    String what = "set condition " + c.type() + " of pod " + namespace + "/" + name;
    KubeCalls.call(
        what,
        () -> {
          try {
            patchStatus(
                namespace, name, PatchType.STRATEGIC_MERGE, Json.SERIALIZATION.asJson(patch));
          } catch (KubernetesClientException e) {
            if (!KubeCalls.is(e, 404) && !anotherUid(e)) {
              throw e;
            }
          }
          return null;
        });
  }

  /** One request: through a bare pod, not by name ({@link KubeRefs}). */
  private void patchStatus(String namespace, String name, PatchType type, String body) {
    client
        .pods()
        .inNamespace(namespace)
        .resource(KubeRefs.pod(namespace, name))
        .subresource("status")
        .patch(PatchContext.of(type), body);
  }

  /** The API server's answer to a patch whose uid is not the object's. */
  private static boolean anotherUid(KubernetesClientException e) {
    return KubeCalls.is(e, 422)
        && e.getStatus() != null
        && e.getStatus().getDetails() != null
        && e.getStatus().getDetails().getCauses() != null
        && e.getStatus().getDetails().getCauses().stream()
            .anyMatch(x -> "metadata.uid".equals(x.getField()));
  }

  private static ArrayNode tree(List<PodCondition> conditions) {
    return Json.MAPPER.valueToTree(conditions);
  }

  /** RFC 3339 in whole seconds, as Kubernetes stores condition times. */
  private String time(Instant t) {
    return (t == null ? clock.instant() : t).truncatedTo(ChronoUnit.SECONDS).toString();
  }
}
