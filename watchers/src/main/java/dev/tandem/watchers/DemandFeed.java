package dev.tandem.watchers;

import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmNode;
import dev.tandem.watchers.NodeSetDemands.NodeSize;
import dev.tandem.watchers.NodeSetDemands.Shape;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodeSetDemand;
import dev.tandem.workflows.model.NodeSetRef;
import dev.tandem.workflows.model.NodeSetSpecView;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the workflow of each autoscaled NodeSet what Slurm's queue asks of it ({@code
 * demandObserved}, computed by {@link NodeSetDemands}), from the Slurm poller's job listings.
 *
 * <ol>
 *   <li>Each changed job listing (a full set of jobs) replaces the jobs kept: those waiting for
 *       resources and those holding nodes, the only ones that ever count. Until the first listing
 *       of the term, nothing is sent: unknown is not "no demand".
 *   <li>On every poll the autoscaled NodeSets are read from the NodeSet informer's cache ({@link
 *       AutoscaledNodeSets}: not being deleted, {@code autoscaling} in the spec in force). After a
 *       changed listing each one's demand is computed; after an unchanged one only the demand of a
 *       NodeSet that is new here (it just became autoscaled, or was forgotten, below) or whose
 *       shape changed (partitions, features, GRES, {@code maxReplicas}), so that one hears within a
 *       poll, not at the queue's next change.
 *   <li>A demand is sent when it differs from the last one sent to that NodeSet ({@code observedAt}
 *       aside), and to every autoscaled NodeSet on each full listing, which repairs a lost signal
 *       within a full resync. At rest that is one signal per NodeSet per full resync.
 *   <li>Outside full listings, a NodeSet is sent at most one demand per {@link #MIN_GAP}: a change
 *       within the gap is held and the demand of the first poll after it is sent (unless the queue
 *       is back to what was sent). On a busy cluster, where jobs start and end on its nodes at
 *       every poll, this bounds the NodeSet's workflow to one demand task per gap rather than one
 *       per job listing (every 250 ms while pods wait); a change after a quiet gap goes at once.
 *   <li>Signals are plain (a NodeSet without its workflow has nothing to scale: never started from
 *       here) and go through the coalescer, one key per NodeSet, latest wins. A demand its workflow
 *       was not running for stays remembered (no signal per poll to a workflow that is not there);
 *       each accepted spec signal, which starts the workflow, makes the feed forget the NodeSet
 *       ({@link #nodeSetRunning}), so it hears at the next poll. A signal the coalescer gives up on
 *       is sent again at the next computation: the next changed listing at the latest.
 *   <li>A NodeSet no longer autoscaled (or gone) is forgotten; when it is autoscaled again it is
 *       new here.
 *   <li>Each changed node listing tells the CPUs and memory of each NodeSet's nodes (the most any
 *       of its registered nodes has, {@code <name>-<ordinal>}), part of its shape. It is kept while
 *       the NodeSet has no node in Slurm, so a NodeSet back at zero still knows a job too wide for
 *       its nodes; these watchers' restart forgets it until a node registers again.
 * </ol>
 */
final class DemandFeed {
  private static final Logger log = LoggerFactory.getLogger(DemandFeed.class);

  /**
   * What a NodeSet was last computed from, the demand last sent (null: send at the next), and
   * whether a different one waits for the gap to pass.
   */
  private record Known(Shape shape, NodeSetDemand sent, boolean held) {}

  /** The least time between two demands sent to one NodeSet, full listings aside. */
  static final Duration MIN_GAP = Duration.ofSeconds(2);

  private final Supplier<Map<NodeSetRef, NodeSetSpecView>> autoscaled;
  private final Coalescer coalescer;
  private final WorkflowSignals signals;
  private final WatcherMetrics metrics;
  private final Map<NodeSetRef, Known> known = new ConcurrentHashMap<>();
  private final Map<String, NodeSize> sizes = new ConcurrentHashMap<>(); // by NodeSet name
  private List<SlurmJob> waiting; // waiting or holding nodes; null until the first listing

  /**
   * @param autoscaled the autoscaled NodeSets with their views ({@link NodeSetWatcher#autoscaled})
   */
  DemandFeed(
      Supplier<Map<NodeSetRef, NodeSetSpecView>> autoscaled,
      Coalescer coalescer,
      WorkflowSignals signals,
      WatcherMetrics metrics) {
    this.autoscaled = autoscaled;
    this.coalescer = coalescer;
    this.signals = signals;
    this.metrics = metrics;
  }

  /**
   * After each successful job poll, on the poller's thread. Never throws: a failure here is not
   * Slurm's and must not count as a failed poll.
   *
   * @param listed the jobs of a changed listing, or null when the listing was unchanged
   * @param full whether it was a full listing
   * @param now when it was read
   */
  void polled(List<SlurmJob> listed, boolean full, Instant now) {
    try {
      update(listed, full, now);
    } catch (RuntimeException e) {
      log.warn("cannot compute the NodeSets' demand from Slurm's queue: {}", e.toString());
    }
  }

  /** After each changed node listing (all nodes), on the poller's thread. Never throws. */
  void nodesListed(List<SlurmNode> listed) {
    try {
      Map<String, NodeSize> seen = new java.util.HashMap<>();
      for (SlurmNode n : listed) {
        String nodeSet = NodeSetDemands.nodeSetOf(n.name());
        // A FUTURE node has not registered: its sizes are slurm.conf's, maybe Slurm's defaults.
        if (nodeSet != null && !n.future()) {
          seen.merge(
              nodeSet,
              new NodeSize(Math.max(0, n.cpus()), Math.max(0, n.realMemoryMb())),
              NodeSize::max);
        }
      }
      sizes.putAll(seen);
    } catch (RuntimeException e) {
      log.warn("cannot read the NodeSets' node sizes from Slurm's nodes: {}", e.toString());
    }
  }

  private void update(List<SlurmJob> listed, boolean full, Instant now) {
    if (listed != null) {
      waiting =
          listed.stream()
              .filter(j -> NodeSetDemands.waiting(j) || NodeSetDemands.holds(j))
              .toList();
    }
    if (waiting == null) {
      return;
    }
    Map<NodeSetRef, NodeSetSpecView> views = autoscaled.get();
    known.keySet().retainAll(views.keySet());
    for (Map.Entry<NodeSetRef, NodeSetSpecView> e : views.entrySet()) {
      NodeSetRef ref = e.getKey();
      Shape shape =
          Shape.of(ref.name(), e.getValue(), sizes.getOrDefault(ref.name(), NodeSize.UNKNOWN));
      Known k = known.get(ref);
      if (listed == null && !full && k != null && k.shape().equals(shape) && !k.held()) {
        continue; // nothing it depends on changed, nothing waits
      }
      NodeSetDemand d = NodeSetDemands.of(waiting, shape, now);
      if (full || k == null || k.sent() == null) {
        send(ref, new Known(shape, d, false));
      } else if (same(k.sent(), d)) {
        if (k.held() || !k.shape().equals(shape)) {
          known.replace(ref, k, new Known(shape, k.sent(), false));
        }
      } else if (now.isBefore(k.sent().observedAt().plus(MIN_GAP))) {
        known.replace(ref, k, new Known(shape, k.sent(), true));
      } else {
        send(ref, new Known(shape, d, false));
      }
    }
  }

  /** A spec signal started (or reached) the NodeSet's workflow: it hears its demand next poll. */
  void nodeSetRunning(NodeSetRef ref) {
    known.remove(ref);
  }

  private void send(NodeSetRef ref, Known k) {
    known.put(ref, k);
    NodeSetDemand d = k.sent();
    coalescer.submit(
        ref.workflowId() + ":demand",
        () -> {
          boolean ok = signals.workflow(ref.workflowId(), Names.SIGNAL_DEMAND_OBSERVED, d);
          metrics.signal(Names.SIGNAL_DEMAND_OBSERVED, ok ? "sent" : "not-running");
        },
        () -> known.replace(ref, k, new Known(k.shape(), null, false)));
  }

  static boolean same(NodeSetDemand a, NodeSetDemand b) {
    return a.nodes() == b.nodes()
        && a.jobs() == b.jobs()
        && a.busy() == b.busy()
        && a.unfit() == b.unfit();
  }
}
