package dev.tandem.slurm;

import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * A Slurm node as Tandem sees it, whatever the REST API version.
 *
 * @param name Slurm node name (for Tandem-managed nodes: the pod name)
 * @param state base state, lower-case: {@code idle}, {@code allocated}, {@code mixed}, {@code
 *     down}, {@code error}, {@code future}, {@code unknown}
 * @param flags state flags, upper-case: {@code DRAIN}, {@code NOT_RESPONDING}, {@code COMPLETING},
 *     {@code DYNAMIC_NORM}, ...
 * @param reason the drain/down reason, or null
 * @param reasonSetBy the user who set the reason, or null
 * @param reasonChangedAt when the reason was set, or null
 * @param cpus configured CPUs
 * @param allocCpus allocated CPUs as Slurm reports them (can be stale on 22.05: derive what runs
 *     from the job list)
 * @param realMemoryMb configured memory in MB
 * @param gres configured generic resources, e.g. {@code gpu:h100:8}, or empty
 * @param gresUsed GRES in use, or empty
 * @param partitions partitions the node belongs to
 * @param features available features
 * @param address NodeAddr
 * @param hostname NodeHostname
 * @param slurmdStartTime when the node's slurmd last started, or null (tells a re-registered pod
 *     from the previous one)
 * @param bootTime the node's boot time, or null
 * @param slurmdVersion the slurmd version, or null
 */
public record SlurmNode(
    String name,
    String state,
    Set<String> flags,
    String reason,
    String reasonSetBy,
    Instant reasonChangedAt,
    int cpus,
    int allocCpus,
    long realMemoryMb,
    String gres,
    String gresUsed,
    List<String> partitions,
    List<String> features,
    String address,
    String hostname,
    Instant slurmdStartTime,
    Instant bootTime,
    String slurmdVersion) {

  public SlurmNode {
    flags = Set.copyOf(flags);
    partitions = List.copyOf(partitions);
    features = List.copyOf(features);
    gres = gres == null ? "" : gres;
    gresUsed = gresUsed == null ? "" : gresUsed;
  }

  public boolean hasFlag(String flag) {
    return flags.contains(flag);
  }

  /** The DRAIN flag is set (draining if jobs still run, drained otherwise). */
  public boolean drainFlag() {
    return flags.contains("DRAIN");
  }

  public boolean notResponding() {
    return flags.contains("NOT_RESPONDING");
  }

  /** Base state down (or error/fail). */
  public boolean down() {
    return "down".equals(state) || "error".equals(state) || flags.contains("FAIL");
  }

  /** Declared but not in service (22.05 FUTURE nodes, or a node returned to FUTURE). */
  public boolean future() {
    return "future".equals(state);
  }
}
