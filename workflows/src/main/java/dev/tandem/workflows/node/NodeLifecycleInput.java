package dev.tandem.workflows.node;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.tandem.workflows.model.DrainPolicy;
import dev.tandem.workflows.model.NodeRef;
import dev.tandem.workflows.model.PodTemplate;
import dev.tandem.workflows.model.Tuning;

/**
 * Start (and continue-as-new) argument of {@link NodeLifecycleWorkflow}.
 *
 * @param ref the node
 * @param template the revision to provision
 * @param ownerUid uid of the NodeSet custom resource (pod owner reference), or null
 * @param deletePolicy drain policy for a {@code delete} signal that brings none
 * @param tuning timing knobs
 * @param state the state carried over by continue-as-new, or null on first start
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record NodeLifecycleInput(
    NodeRef ref,
    PodTemplate template,
    String ownerUid,
    DrainPolicy deletePolicy,
    Tuning tuning,
    NodeLifecycleState state) {}
