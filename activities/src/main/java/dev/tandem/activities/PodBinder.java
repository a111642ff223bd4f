package dev.tandem.activities;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.k8s.Json;
import dev.tandem.k8s.PodViews;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.schedule.BindRequest;
import dev.tandem.workflows.schedule.ScheduleAnnotations;
import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Binds a pod to a Kubernetes node the way kube-scheduler does, with the pod's {@code binding}
 * subresource ({@code POST /api/v1/namespaces/<ns>/pods/<name>/binding}; the collection {@code
 * /bindings} clears {@code metadata.uid}, so it would bind a recreated pod):
 *
 * <ol>
 *   <li>POST a Binding whose {@code metadata.uid} is the pod uid (the API server checks it as a
 *       precondition: a pod recreated under the same name is never bound by mistake) and whose
 *       annotations {@code tandem.dev/job-id} and {@code tandem.dev/slurm-node} the API server
 *       copies onto the pod. Accepted: the pod is on the node (one request, the common case). 404:
 *       {@link PodView#absent}.
 *   <li>Refused (409: bound already, perhaps by this very call's lost first attempt; another uid;
 *       being deleted) or failed: read the pod and decide. Gone, or another pod (another uid) under
 *       the name: {@link PodView#absent}.
 *   <li>Already on the target node: success; the job annotations are added if missing (the bind
 *       that set the node may have been someone else's, or an older Tandem's). On another node:
 *       non-retryable {@code KubeRejected}: the pod runs where Slurm did not allocate.
 *   <li>Being deleted: returned as it is (the API server refuses to bind it).
 *   <li>Else POST the Binding again; a 409 re-reads from step 2.
 * </ol>
 */
final class PodBinder {
  private static final Logger log = LoggerFactory.getLogger(PodBinder.class);

  private final KubernetesClient client;

  PodBinder(KubernetesClient client) {
    this.client = client;
  }

  PodView bind(BindRequest r) {
    if (r == null || r.namespace() == null || r.name() == null || r.uid() == null) {
      throw KubeCalls.rejected("bindPod needs a namespace, a name and a uid, got " + r);
    }
    if (r.k8sNode() == null || r.k8sNode().isBlank()) {
      throw KubeCalls.rejected("bindPod " + r.namespace() + "/" + r.name() + ": no target node");
    }
    String what = "bind pod " + r.namespace() + "/" + r.name() + " to node " + r.k8sNode();
    Map<String, String> wanted = annotations(r);
    try {
      postBinding(r, wanted);
      log.info("{} (job {}, Slurm node {})", what, r.jobId(), r.slurmNode());
      return bound(r);
    } catch (KubernetesClientException e) {
      if (KubeCalls.is(e, 404)) {
        return PodView.absent(r.name());
      }
      log.debug("{}: refused ({}); reading the pod", what, e.getCode());
    }
    return KubeCalls.withConflictRetry(
        what,
        () -> {
          Pod p = get(r.namespace(), r.name());
          if (p == null || !r.uid().equals(p.getMetadata().getUid())) {
            return PodView.absent(r.name());
          }
          String current = p.getSpec() == null ? null : p.getSpec().getNodeName();
          if (current != null && !current.isEmpty()) {
            if (!current.equals(r.k8sNode())) {
              throw KubeCalls.rejected(
                  what
                      + ": the pod is already bound to node "
                      + current
                      + " (uid "
                      + r.uid()
                      + ")");
            }
            return PodViews.of(ensureAnnotations(p, wanted));
          }
          if (p.getMetadata().getDeletionTimestamp() != null) {
            return PodViews.of(p);
          }
          try {
            postBinding(r, wanted);
          } catch (KubernetesClientException e) {
            if (KubeCalls.is(e, 404)) {
              return PodView.absent(r.name());
            }
            throw e; // 409 re-reads: bound meanwhile (maybe by this very call), or a new uid
          }
          log.info("{} (job {}, Slurm node {})", what, r.jobId(), r.slurmNode());
          Pod after = get(r.namespace(), r.name());
          return after == null || !r.uid().equals(after.getMetadata().getUid())
              ? PodView.absent(r.name())
              : PodViews.of(after);
        });
  }

  /**
   * POSTs to the pod's binding subresource, which fabric8 has no call for; a refusal is thrown as
   * the API server's {@code Status}, as fabric8's own calls do.
   */
  private void postBinding(BindRequest r, Map<String, String> annotations) {
    Binding b = binding(r, annotations);
    String url =
        client.getMasterUrl().toString().replaceAll("/+$", "")
            + "/api/v1/namespaces/"
            + r.namespace()
            + "/pods/"
            + r.name()
            + "/binding";
    HttpClient http = client.getHttpClient();
    HttpRequest req =
        http.newHttpRequestBuilder()
            .uri(url)
            .post("application/json", client.getKubernetesSerialization().asJson(b))
            .build();
    HttpResponse<String> resp;
    try {
      resp = http.sendAsync(req, String.class).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw KubernetesClientException.launderThrowable(e);
    } catch (ExecutionException e) {
      throw KubernetesClientException.launderThrowable(e.getCause());
    }
    if (!resp.isSuccessful()) {
      Status status;
      try {
        status = client.getKubernetesSerialization().unmarshal(resp.body(), Status.class);
      } catch (RuntimeException notStatus) {
        status = null;
      }
      if (status == null || status.getCode() == null) {
        throw new KubernetesClientException(
            "POST " + url + ": " + resp.code() + " " + resp.body(), resp.code(), null);
      }
      throw new KubernetesClientException(status);
    }
  }

  /**
   * The pod as an accepted binding leaves it: bound to the target, not yet started. Reading it back
   * would cost a request per bind; what the workflow needs of it (exists, the node, not ending) is
   * what the API server just agreed to.
   */
  private static PodView bound(BindRequest r) {
    return new PodView(
        true, r.name(), r.uid(), null, "Pending", false, r.k8sNode(), false, null, null, null);
  }

  private static Map<String, String> annotations(BindRequest r) {
    Map<String, String> a = new LinkedHashMap<>();
    a.put(ScheduleAnnotations.JOB_ID, Long.toString(r.jobId()));
    if (r.slurmNode() != null) {
      a.put(ScheduleAnnotations.SLURM_NODE, r.slurmNode());
    }
    return a;
  }

  private static Binding binding(BindRequest r, Map<String, String> annotations) {
    return new BindingBuilder()
        .withNewMetadata()
        .withName(r.name())
        .withNamespace(r.namespace())
        .withUid(r.uid())
        .withAnnotations(annotations)
        .endMetadata()
        .withNewTarget()
        .withApiVersion("v1")
        .withKind("Node")
        .withName(r.k8sNode())
        .endTarget()
        .build();
  }

  /**
   * Adds the wanted annotations with a JSON patch that also sets the read resourceVersion, so a
   * concurrent change gives 409 and a re-read instead of being overwritten.
   */
  private Pod ensureAnnotations(Pod p, Map<String, String> wanted) {
    Map<String, String> have = p.getMetadata().getAnnotations();
    Map<String, String> merged = new LinkedHashMap<>(have == null ? Map.of() : have);
    merged.putAll(wanted);
    if (merged.equals(have)) {
      return p;
    }
    ArrayNode patch = JsonNodeFactory.instance.arrayNode();
    patch
        .addObject()
        .put("op", "replace")
        .put("path", "/metadata/resourceVersion")
        .put("value", p.getMetadata().getResourceVersion());
    ObjectNode value =
        patch.addObject().put("op", "add").put("path", "/metadata/annotations").putObject("value");
    merged.forEach(value::put);
    return client
        .pods()
        .inNamespace(p.getMetadata().getNamespace())
        .resource(KubeRefs.pod(p.getMetadata().getNamespace(), p.getMetadata().getName()))
        .patch(PatchContext.of(PatchType.JSON), Json.SERIALIZATION.asJson(patch));
  }

  private Pod get(String namespace, String name) {
    return client.pods().inNamespace(namespace).withName(name).get();
  }
}
