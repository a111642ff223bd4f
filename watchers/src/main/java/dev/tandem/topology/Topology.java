package dev.tandem.topology;

/**
 * One rendering of the topology.
 *
 * @param spec the labels it was rendered from
 * @param conf {@code topology.conf} (topology/tree on every Slurm version; {@code BlockName} lines
 *     for topology/block, Slurm 23.11 and later)
 * @param yaml {@code topology.yaml} (Slurm 25.05 and later; Slurm ignores topology.conf when it
 *     exists)
 */
public record Topology(TopologySpec spec, String conf, String yaml) {}
