package dev.tandem.workflows.schedule;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.EventRequest;

/**
 * Tell a pod why it ends, then evict it, in one call ({@code
 * SchedulingActivities.announceAndEvict}).
 *
 * @param namespace pod namespace
 * @param name pod name
 * @param uid pod uid (a pod of the same name with another uid is neither written nor evicted)
 * @param condition the ending's condition ({@code SlurmPreempted} or {@code SlurmJobEnded}, True)
 * @param event the ending's Warning event
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record AnnounceRequest(
    String namespace, String name, String uid, Condition condition, EventRequest event) {}
