package dev.tandem.workflows.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * Sent by the NodeSet workflow to move a node to a new pod revision.
 *
 * @param target the revision to run
 * @param immediate true: drain and replace the pod now (RollingUpdate); false: only remember the
 *     revision and use it the next time the pod is recreated (OnDelete)
 * @param policy drain policy for this update
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record UpdateCommand(PodTemplate target, boolean immediate, DrainPolicy policy) {}
