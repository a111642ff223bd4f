package dev.tandem.devstack.kubelet;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Instant;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Core v1 events the kubelet records about a pod (source component {@code kubelet}). */
final class Events {
  private static final Logger log = LoggerFactory.getLogger(Events.class);

  private Events() {}

  /** Best effort, as a real kubelet's recorder: a failure is logged, never raised. */
  static void warning(
      KubernetesClient client, Pod pod, String reason, String message, String host) {
    String ns = pod.getMetadata().getNamespace();
    String now = PodStatuses.ts(Instant.now());
    try {
      client
          .v1()
          .events()
          .inNamespace(ns)
          .resource(
              new EventBuilder()
                  .withNewMetadata()
                  .withName(
                      pod.getMetadata().getName()
                          + "."
                          + UUID.randomUUID().toString().replace("-", "").substring(0, 16))
                  .withNamespace(ns)
                  .endMetadata()
                  .withNewInvolvedObject()
                  .withApiVersion("v1")
                  .withKind("Pod")
                  .withName(pod.getMetadata().getName())
                  .withNamespace(ns)
                  .withUid(pod.getMetadata().getUid())
                  .endInvolvedObject()
                  .withType("Warning")
                  .withReason(reason)
                  .withMessage(message)
                  .withNewSource()
                  .withComponent("kubelet")
                  .withHost(host)
                  .endSource()
                  .withReportingComponent("kubelet")
                  .withReportingInstance(host)
                  .withFirstTimestamp(now)
                  .withLastTimestamp(now)
                  .withCount(1)
                  .build())
          .create();
    } catch (KubernetesClientException e) {
      log.debug(
          "cannot record event {} for {}/{}: {}",
          reason,
          ns,
          pod.getMetadata().getName(),
          e.getMessage());
    }
  }
}
