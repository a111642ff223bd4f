package dev.tandem.workflows.schedule;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.tandem.workflows.model.PodView;

/**
 * What {@code SchedulingActivities.announceAndEvict} did: the condition is on the pod and the event
 * recorded (else the call failed), and the eviction answered {@code pod}: absent, terminating, or
 * the pod as it is when a budget refused it for now. {@code pod} is null when the eviction got no
 * answer; the caller evicts again.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Announced(PodView pod) {}
