package dev.tandem.watchers;

import dev.tandem.slurm.SlurmJob;
import dev.tandem.workflows.model.Autoscaling;
import dev.tandem.workflows.model.NodeSetDemand;
import dev.tandem.workflows.model.NodeSetSpecView;
import dev.tandem.workflows.model.SlurmSettings;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What Slurm's queue asks of one autoscaled NodeSet ({@link NodeSetDemand}, the payload of {@code
 * demandObserved}), from a job listing and the NodeSet's shape alone: a pure function, so every
 * rule is tested without Slurm, Kubernetes or Temporal.
 *
 * <ol>
 *   <li><b>Waiting.</b> Only jobs in state PENDING whose reason says that more nodes could start
 *       them count ({@link SlurmQueue#WAITING_FOR_RESOURCES}, as for the partition gauges). A job
 *       held, waiting for a dependency, a begin time or a limit of its account or QOS would not
 *       start on a new node.
 *   <li><b>Partitions.</b> Of those, the jobs on one of the NodeSet's partitions ({@code
 *       spec.slurm.partitions}); a job that names several ({@code a,b}) counts when any of them is
 *       the NodeSet's. It then counts for every NodeSet that could run it: Slurm decides where it
 *       runs, and each NodeSet bounds only its own growth ({@code maxReplicas}). A NodeSet that
 *       names no partition has no demand.
 *   <li><b>Size.</b> A job asks for its node count; a count Slurm does not give (0) is one node. A
 *       job that asks for more nodes than {@code maxReplicas} can never start on this NodeSet: it
 *       is unfit.
 *   <li><b>GRES.</b> Every GRES the job asks for on each node ({@code gpu:2}, {@code
 *       gpu:h100:2,nvme:1}) must be in the NodeSet's {@code spec.slurm.gres} at that count or more,
 *       matched by name, and by type when the job names one: {@code gpu:2} fits {@code gpu:h100:8},
 *       {@code gpu:a100:1} does not, nor does it fit an untyped {@code gpu:8}. A NodeSet that lists
 *       one name under several types offers an untyped request their sum. Otherwise the job is
 *       unfit.
 *   <li><b>Features.</b> A feature constraint that is a plain AND list ({@code h100&ib}, {@code
 *       h100,ib}) fits when every feature in it is among the NodeSet's ({@code
 *       spec.slurm.features}); otherwise the job is unfit.
 *   <li><b>When unsure, fit.</b> A constraint with anything more ({@code |}, {@code [...]}, {@code
 *       *count}, {@code !}, parentheses), or a GRES string on either side that cannot be read,
 *       counts as fitting. A wrong "fit" adds a node that cannot run the job: wasted until the idle
 *       time gives it back, and never more than {@code maxReplicas}. A wrong "unfit" would leave a
 *       job that only this NodeSet can run waiting for ever. Bounded waste is the lesser harm.
 *   <li><b>CPUs and memory.</b> A job asking for more CPUs or memory per node than the NodeSet's
 *       nodes have is unfit. What they have is known from Slurm only: the most CPUs and the most
 *       memory ({@code RealMemory}) any of the NodeSet's nodes registered with, as these watchers
 *       last saw them ({@link DemandFeed}; a pod template says it as Kubernetes resources, which
 *       need not be what slurmd finds). Until one of its nodes has registered (a new NodeSet at
 *       zero, or these watchers restarted while it was at zero) they are unknown, and such a job
 *       fits: one node is started, registers, and from then on the job is unfit, so the node is
 *       idle and given back. A CPU count or memory the job does not give fits.
 *   <li><b>Busy.</b> From the same listing, the NodeSet's nodes ({@code <name>-<ordinal>}) that a
 *       job holds (running, suspended, completing...): the work it has now, read at the same moment
 *       as the queue, so a job that just started on new nodes is not also counted as waiting.
 *   <li><b>Result.</b> {@code nodes} is the sum of the fitting jobs' node counts, {@code jobs} how
 *       many they are, {@code busy} as above, {@code unfit} how many waiting jobs on the NodeSet's
 *       partitions were unfit: those add nothing, and their count tells an operator why the queue
 *       does not move.
 * </ol>
 */
final class NodeSetDemands {
  private NodeSetDemands() {}

  /**
   * What of a NodeSet decides which waiting jobs count for it.
   *
   * @param maxReplicas {@code spec.autoscaling.maxReplicas}; no bound when not autoscaled
   * @param size what its nodes have in Slurm
   */
  record Shape(
      String name,
      List<String> partitions,
      List<String> features,
      String gres,
      int maxReplicas,
      NodeSize size) {
    static Shape of(String name, NodeSetSpecView v, NodeSize size) {
      SlurmSettings s = v.template() == null ? SlurmSettings.none() : v.template().slurm();
      Autoscaling a = v.autoscaling();
      return new Shape(
          name,
          s.partitions(),
          s.features(),
          s.gres(),
          a == null ? Integer.MAX_VALUE : a.maxReplicas(),
          size);
    }

    /** Whether Slurm node {@code node} is one of this NodeSet's ({@code <name>-<ordinal>}). */
    boolean owns(String node) {
      return name.equals(nodeSetOf(node));
    }
  }

  /**
   * The CPUs and memory (MiB) of a NodeSet's nodes in Slurm: the most of any of them; 0 for what no
   * registered node has told.
   */
  record NodeSize(int cpus, long memoryMb) {
    static final NodeSize UNKNOWN = new NodeSize(0, 0);

    NodeSize max(NodeSize o) {
      return new NodeSize(Math.max(cpus, o.cpus), Math.max(memoryMb, o.memoryMb));
    }

    /** Whether a node of this size can give {@code r}; what is unknown on either side can. */
    boolean fits(SlurmJob.Request r) {
      return (cpus == 0 || r.cpusPerNode() <= cpus)
          && (memoryMb == 0 || r.memoryMbPerNode() <= memoryMb);
    }
  }

  /** The NodeSet a Slurm node named {@code <name>-<ordinal>} would be of, else null. */
  static String nodeSetOf(String node) {
    int dash = node.lastIndexOf('-');
    return dash > 0
            && dash < node.length() - 1
            && node.substring(dash + 1).chars().allMatch(Character::isDigit)
        ? node.substring(0, dash)
        : null;
  }

  /**
   * The demand on NodeSet {@code name} viewed as {@code v}, whose nodes are of {@code size}, from
   * {@code listed} (read at {@code at}).
   */
  static NodeSetDemand of(
      List<SlurmJob> listed, String name, NodeSetSpecView v, NodeSize size, Instant at) {
    return of(listed, Shape.of(name, v, size), at);
  }

  static NodeSetDemand of(List<SlurmJob> listed, Shape shape, Instant at) {
    List<Gres> offered = Gres.parse(shape.gres());
    long nodes = 0;
    int jobs = 0;
    int unfit = 0;
    java.util.Set<String> busy = new java.util.HashSet<>();
    for (SlurmJob j : listed) {
      if (holds(j)) {
        j.nodeList().stream().filter(shape::owns).forEach(busy::add);
        continue;
      }
      if (!waiting(j) || !onAny(j.partition(), shape.partitions())) {
        continue;
      }
      if (fits(j.request(), shape, offered)) {
        jobs++;
        nodes += size(j.request());
      } else {
        unfit++;
      }
    }
    return new NodeSetDemand(
        (int) Math.min(nodes, Integer.MAX_VALUE), jobs, busy.size(), unfit, at);
  }

  /** A job that may hold its nodes. */
  static boolean holds(SlurmJob j) {
    return SlurmJob.ACTIVE_STATES.contains(j.state()) && !j.nodeList().isEmpty();
  }

  /** Pending for a reason that more nodes could end; only such jobs ever count. */
  static boolean waiting(SlurmJob j) {
    return j.pending() && SlurmQueue.waitsForResources(j);
  }

  private static int size(SlurmJob.Request r) {
    return Math.max(1, r.nodes());
  }

  private static boolean onAny(String jobPartitions, List<String> ours) {
    return SlurmQueue.partitions(jobPartitions).stream().anyMatch(ours::contains);
  }

  private static boolean fits(SlurmJob.Request r, Shape shape, List<Gres> offered) {
    return size(r) <= shape.maxReplicas()
        && shape.size().fits(r)
        && fitsGres(Gres.parse(r.gresPerNode()), offered)
        && fitsFeatures(r.features(), shape.features());
  }

  /** Null on either side: unreadable, so it fits. */
  static boolean fitsGres(List<Gres> asked, List<Gres> offered) {
    if (asked == null || offered == null) {
      return true;
    }
    for (Gres a : asked) {
      long have = 0;
      for (Gres o : offered) {
        if (o.name().equals(a.name()) && (a.type() == null || a.type().equals(o.type()))) {
          have = Long.MAX_VALUE - have < o.count() ? Long.MAX_VALUE : have + o.count();
        }
      }
      if (have < a.count()) {
        return false;
      }
    }
    return true;
  }

  /** Feature names joined by {@code &} or {@code ,} and nothing else. */
  private static final Pattern AND_LIST = Pattern.compile("[\\w.\\-]+([&,][\\w.\\-]+)*");

  static boolean fitsFeatures(String constraint, List<String> offered) {
    if (constraint == null) {
      return true;
    }
    String c = constraint.strip();
    if (!AND_LIST.matcher(c).matches()) {
      return true; // more than an AND list: we cannot tell, so it fits (see the class comment)
    }
    for (String f : c.split("[&,]")) {
      if (!offered.contains(f)) {
        return false;
      }
    }
    return true;
  }

  /**
   * One GRES entry in slurm.conf form, {@code name[:type][:count]}: a count may end in K, M, G, T
   * or P (powers of 1024) and defaults to 1.
   */
  record Gres(String name, String type, long count) {
    private static final Pattern COUNT =
        Pattern.compile("(\\d+)([KMGTP]?)", Pattern.CASE_INSENSITIVE);

    /**
     * A comma-separated list ({@code gpu:h100:8,nvme:1}); empty for null or blank, null when an
     * entry cannot be read. A socket binding in parentheses ({@code gpu:8(S:0-1)}) and the flag
     * {@code no_consume} are left out.
     */
    static List<Gres> parse(String list) {
      if (list == null || list.isBlank()) {
        return List.of();
      }
      List<Gres> out = new ArrayList<>();
      for (String raw : list.replaceAll("\\([^)]*\\)", "").split(",")) {
        List<String> parts = new ArrayList<>(List.of(raw.strip().split(":", -1)));
        parts.remove("no_consume");
        if (parts.isEmpty() || parts.size() > 3 || parts.contains("")) {
          return null;
        }
        String last = parts.get(parts.size() - 1);
        Matcher m = COUNT.matcher(last);
        long count = 1;
        if (parts.size() > 1 && m.matches()) {
          count = count(m);
          parts.remove(parts.size() - 1);
        }
        if (count < 0 || parts.size() > 2) {
          return null;
        }
        out.add(new Gres(parts.get(0), parts.size() == 2 ? parts.get(1) : null, count));
      }
      return out;
    }

    /** The count, or -1 when it does not fit in a long. */
    private static long count(Matcher m) {
      try {
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2).toUpperCase(java.util.Locale.ROOT);
        return unit.isEmpty() ? n : Math.multiplyExact(n, 1L << (10 + 10 * "KMGTP".indexOf(unit)));
      } catch (NumberFormatException | ArithmeticException e) {
        return -1;
      }
    }
  }
}
