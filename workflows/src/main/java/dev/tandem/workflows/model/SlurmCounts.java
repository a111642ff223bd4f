package dev.tandem.workflows.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * How a NodeSet's nodes look in Slurm.
 *
 * @param idle idle, not drained
 * @param allocated allocated or mixed, not drained
 * @param draining DRAIN flag with jobs still running
 * @param drained DRAIN flag, no jobs
 * @param down down, not responding, or unknown to Slurm
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record SlurmCounts(int idle, int allocated, int draining, int drained, int down) {}
