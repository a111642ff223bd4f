package dev.tandem.workflows.nodeset;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.tandem.workflows.model.NodeSetRef;
import dev.tandem.workflows.model.NodeSetSpecView;
import dev.tandem.workflows.model.Tuning;

/**
 * Start (and continue-as-new) argument of {@link NodeSetWorkflow}.
 *
 * @param ref the NodeSet
 * @param spec the spec at start (may be invalid: it is validated like any later one)
 * @param tuning timing knobs, also handed to the node workflows
 * @param state the state carried over by continue-as-new, or null on first start
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record NodeSetInput(
    NodeSetRef ref, NodeSetSpecView spec, Tuning tuning, NodeSetState state) {}
