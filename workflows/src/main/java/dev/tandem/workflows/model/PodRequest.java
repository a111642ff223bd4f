package dev.tandem.workflows.model;

/**
 * Everything needed to create one slurmd pod.
 *
 * @param node which node (namespace, NodeSet, pod name, ordinal)
 * @param template the revision to create
 * @param ownerUid uid of the NodeSet (the pod's owner reference), or null
 */
public record PodRequest(NodeRef node, PodTemplate template, String ownerUid) {}
