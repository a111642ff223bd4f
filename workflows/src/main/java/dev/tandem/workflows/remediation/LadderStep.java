package dev.tandem.workflows.remediation;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * One rung of the ladder: the action and how long it may take, re-checks included, before the next
 * rung is tried.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record LadderStep(RemediationAction action, long timeoutSeconds) {}
