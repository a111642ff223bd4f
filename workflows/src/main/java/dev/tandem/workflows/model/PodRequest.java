package dev.tandem.workflows.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * Everything needed to create one slurmd pod.
 *
 * @param node which node (namespace, NodeSet, pod name, ordinal)
 * @param template the revision to create
 * @param ownerUid uid of the NodeSet (the pod's owner reference), or null
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record PodRequest(NodeRef node, PodTemplate template, String ownerUid) {}
