package dev.tandem.activities;

import dev.tandem.k8s.NodeSetResources;
import dev.tandem.k8s.api.NodeSet;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.EventRequest;
import dev.tandem.workflows.schedule.ScheduleAnnotations;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Records core/v1 Events so {@code kubectl describe} shows what Tandem did. Best effort. */
final class EventRecorder {
  private static final Logger log = LoggerFactory.getLogger(EventRecorder.class);

  /** Kubernetes truncates event messages around 1 KB in kubectl output; keep them readable. */
  static final int MAX_MESSAGE = 1024;

  private static final String COMPONENT = Names.EVENT_COMPONENT;
  static final String NODE = "Node";
  private static final AtomicLong SEQ = new AtomicLong();

  private final KubernetesClient client;
  private final Clock clock;

  EventRecorder(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  /** Never throws: an event is worth less than the step that reports it. */
  void record(EventRequest e) {
    if (e == null || e.namespace() == null || e.name() == null) {
      log.warn("not recording an event without an object: {}", e);
      return;
    }
    try {
      Event ev = build(e, e.uid() != null ? e.uid() : uid(e));
      client.v1().events().inNamespace(e.namespace()).resource(ev).create();
    } catch (RuntimeException ex) {
      log.warn(
          "could not record event {} on {} {}/{}: {}",
          e == null ? null : e.reason(),
          e == null ? null : e.kind(),
          e == null ? null : e.namespace(),
          e == null ? null : e.name(),
          ex.toString());
    }
  }

  Event build(EventRequest e, String uid) {
    Instant now = clock.instant().truncatedTo(ChronoUnit.SECONDS);
    String message = e.message() == null ? "" : e.message();
    if (message.length() > MAX_MESSAGE) {
      message = message.substring(0, MAX_MESSAGE - 3) + "...";
    }
    // Names like kubelet's: <object>.<unique hex>; unique per process and time.
    String name =
        e.name() + "." + Long.toHexString(clock.millis()) + Long.toHexString(SEQ.incrementAndGet());
    return new EventBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(e.namespace())
        // A gang member's events name its group: a deleted member is found by name through them
        // (tandem history pod/NS/NAME), though its own scheduling workflow is its group's.
        .withAnnotations(
            e.group() == null ? null : Map.of(ScheduleAnnotations.POD_GROUP, e.group()))
        .endMetadata()
        .withNewInvolvedObject()
        .withKind(e.kind())
        .withApiVersion(NodeSet.KIND.equals(e.kind()) ? NodeSet.API_VERSION : "v1")
        .withName(e.name())
        // Nodes are cluster-scoped: their events live in "default" (as kubelet's do) and name no
        // namespace, which is what kubectl describe node selects on.
        .withNamespace(NODE.equals(e.kind()) ? null : e.namespace())
        .withUid(uid)
        .endInvolvedObject()
        .withType("Warning".equals(e.type()) ? "Warning" : "Normal")
        .withReason(e.reason())
        .withMessage(message)
        .withNewSource()
        .withComponent(COMPONENT)
        .endSource()
        .withReportingComponent(COMPONENT)
        .withFirstTimestamp(now.toString())
        .withLastTimestamp(now.toString())
        .withCount(1)
        .build();
  }

  /**
   * The object's uid: {@code kubectl describe} selects events by involvedObject uid, so an event
   * without it would not show there. Null when the object cannot be read (the event is still
   * recorded).
   */
  private String uid(EventRequest e) {
    try {
      HasMetadata o =
          NodeSet.KIND.equals(e.kind())
              ? NodeSetResources.generic(client).inNamespace(e.namespace()).withName(e.name()).get()
              : NODE.equals(e.kind())
                  ? client.nodes().withName(e.name()).get()
                  : client.pods().inNamespace(e.namespace()).withName(e.name()).get();
      return o == null ? null : o.getMetadata().getUid();
    } catch (RuntimeException ex) {
      return null;
    }
  }
}
