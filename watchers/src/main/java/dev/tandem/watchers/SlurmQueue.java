package dev.tandem.watchers;

import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmNode;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Slurm's queue and nodes per partition, from the poller's full listings, as the {@code
 * tandem_slurm_partition_*} gauges: what KEDA or the HPA scale a NodeSet on, and what a dashboard
 * shows beside Tandem's own figures (docs/configuration.md, "Metrics").
 *
 * <ol>
 *   <li>A job counts in every partition it names (a pending job may name several, {@code a,b}).
 *       {@code pending} is a job in state PENDING; {@code running} one that may hold nodes ({@link
 *       SlurmJob#ACTIVE_STATES}).
 *   <li>The pending node demand of a partition is the nodes asked for by its pending jobs that wait
 *       for resources ({@link #WAITING_FOR_RESOURCES}): those that more nodes could start. A job
 *       held, waiting for a dependency, a begin time or a limit of its account or QOS adds nothing:
 *       no node would start it. A job whose node count Slurm does not give counts one node.
 *   <li>Nodes by state ({@link #nodeState}): {@code idle}, {@code mixed}, {@code allocated}, {@code
 *       draining} (drain set, jobs still on it), {@code drained}, {@code down} (also error and not
 *       responding), {@code future} (declared, not started: a NodeSet scaled down or not yet up),
 *       {@code unknown}.
 *   <li>Each listing that changed replaces the rows of its kind; a partition or state no longer
 *       seen disappears from {@code /metrics} rather than staying at its last value.
 * </ol>
 */
final class SlurmQueue {
  /** Pending reasons that more nodes in the partition could end. */
  static final Set<String> WAITING_FOR_RESOURCES =
      Set.of("Resources", "Priority", "ReqNodeNotAvail", "PartitionConfig", "NodeDown");

  private final MultiGauge jobs;
  private final MultiGauge demand;
  private final MultiGauge nodes;

  SlurmQueue(MeterRegistry registry) {
    jobs =
        MultiGauge.builder("tandem.slurm.partition.jobs")
            .description("Slurm jobs per partition: state pending or running (on the leader)")
            .register(registry);
    demand =
        MultiGauge.builder("tandem.slurm.partition.pending.node.demand")
            .description(
                "Nodes asked for by a partition's pending jobs that wait for resources (on the"
                    + " leader)")
            .register(registry);
    nodes =
        MultiGauge.builder("tandem.slurm.partition.nodes")
            .description("Slurm nodes per partition and state (on the leader)")
            .register(registry);
  }

  /** A full job listing. */
  void jobs(List<SlurmJob> listed) {
    Map<List<String>, Integer> count = new TreeMap<>(KEY_ORDER);
    Map<List<String>, Integer> asked = new TreeMap<>(KEY_ORDER);
    for (SlurmJob j : listed) {
      String state =
          "PENDING".equals(j.state())
              ? "pending"
              : SlurmJob.ACTIVE_STATES.contains(j.state()) ? "running" : null;
      if (state == null) {
        continue;
      }
      for (String p : partitions(j.partition())) {
        count.merge(List.of(p, state), 1, Integer::sum);
        if ("pending".equals(state)) {
          int n = waitsForResources(j) ? Math.max(1, j.request().nodes()) : 0;
          asked.merge(List.of(p), n, Integer::sum);
        }
      }
    }
    jobs.register(rows(count, "partition", "state"), true);
    demand.register(rows(asked, "partition"), true);
  }

  /** A full node listing. */
  void nodes(List<SlurmNode> listed) {
    Map<List<String>, Integer> count = new TreeMap<>(KEY_ORDER);
    for (SlurmNode n : listed) {
      String state = nodeState(n);
      for (String p : n.partitions()) {
        count.merge(List.of(p, state), 1, Integer::sum);
      }
    }
    nodes.register(rows(count, "partition", "state"), true);
  }

  /** No leader polls here any more: the rows go (a new leader's first listing brings them). */
  void clear() {
    jobs.register(List.of(), true);
    demand.register(List.of(), true);
    nodes.register(List.of(), true);
  }

  static boolean waitsForResources(SlurmJob j) {
    return j.stateReason() != null && WAITING_FOR_RESOURCES.contains(j.stateReason());
  }

  /** One word for a node's state, as {@code sinfo} summarises it. */
  static String nodeState(SlurmNode n) {
    Set<String> f = n.flags();
    String base = n.state() == null ? "unknown" : n.state();
    if ("future".equals(base)) {
      return "future";
    }
    if ("down".equals(base) || "error".equals(base) || f.contains("NOT_RESPONDING")) {
      return "down";
    }
    if (f.contains("DRAIN")) {
      return "idle".equals(base) && !f.contains("COMPLETING") ? "drained" : "draining";
    }
    return switch (base) {
      case "idle", "mixed", "allocated" -> base;
      default -> "unknown";
    };
  }

  /** The partitions a job names ({@code a,b}), trimmed; none for a null or blank field. */
  static List<String> partitions(String field) {
    if (field == null || field.isBlank()) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    for (String p : field.split(",")) {
      if (!p.isBlank()) {
        out.add(p.trim());
      }
    }
    return out;
  }

  private static List<MultiGauge.Row<?>> rows(Map<List<String>, Integer> values, String... keys) {
    List<MultiGauge.Row<?>> out = new ArrayList<>();
    values.forEach(
        (k, v) -> {
          Tags tags = Tags.empty();
          for (int i = 0; i < keys.length; i++) {
            tags = tags.and(keys[i], k.get(i));
          }
          out.add(MultiGauge.Row.of(tags, v));
        });
    return out;
  }

  private static final java.util.Comparator<List<String>> KEY_ORDER =
      (a, b) -> String.join("\u0000", a).compareTo(String.join("\u0000", b));
}
