package dev.tandem.workflows.testing;

import dev.tandem.workflows.activities.KubeActivities;
import dev.tandem.workflows.activities.SlurmActivities;
import dev.tandem.workflows.model.DrainReason;
import dev.tandem.workflows.model.EventRequest;
import dev.tandem.workflows.model.NodeJobs;
import dev.tandem.workflows.model.NodeSetRef;
import dev.tandem.workflows.model.NodeSetStatusView;
import dev.tandem.workflows.model.PodRequest;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmNodeView;
import io.temporal.failure.ApplicationFailure;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * An in-memory Kubernetes + Slurm that implements both activity interfaces with the semantics the
 * real implementations promise (idempotent calls, admin drains kept, jobs derived per node). Pods
 * start running at once and their slurmd registers at once; tests drive jobs, administrator drains,
 * pod loss and outages. Thread-safe: activities run on worker threads.
 *
 * <p>It also watches a safety property on every change: how many nodes are out of service at once
 * ({@link #maxOutOfService()}), and it refuses to delete a pod while a job runs on its node unless
 * the node was forced down ({@link #violations()}).
 */
public class FakeCluster implements KubeActivities, SlurmActivities {

  /** A Slurm node in the fake. */
  static final class Node {
    String state = "idle";
    Set<String> flags = new HashSet<>();
    String reason;
    Instant slurmdStart;
  }

  private long clock = 1_700_000_000L;
  private int uidSeq;
  private long jobSeq = 100;
  private final Map<String, PodView> pods = new TreeMap<>();
  private final Map<String, Node> nodes = new TreeMap<>();
  private final Map<Long, String> jobs = new LinkedHashMap<>();
  private final Map<String, NodeSetStatusView> statuses = new LinkedHashMap<>();
  private final List<String> calls = new ArrayList<>();
  private final List<String> violations = new ArrayList<>();
  private final List<NodeSetRef> released = new ArrayList<>();
  private final List<EventRequest> events = new ArrayList<>();
  private final Map<String, Integer> podCreations = new TreeMap<>();
  private boolean slurmDown;
  private boolean kubeDown;
  private boolean labelsDown;
  private String unschedulable;
  private final Set<String> evictable = new java.util.TreeSet<>();
  private int pingReadsAfterUndrain;
  private final Map<String, Integer> pinging = new TreeMap<>();
  private int maxOutOfService;
  private Set<String> trackedNodes = Set.of();
  private final Map<String, String> rejectedRevisions = new TreeMap<>();
  private final Map<String, Integer> ensurePodCalls = new TreeMap<>();
  private final Map<String, Integer> nodeReads = new TreeMap<>();
  private final Map<String, Map<String, String>> nodeLabels = new TreeMap<>();
  private final Map<String, String> placedOn = new TreeMap<>();
  private String domainKey;
  private int maxDomainsOut;
  private final Map<String, Integer> maxOutPerDomain = new TreeMap<>();
  private final List<String> domainsTaken = new ArrayList<>();
  private int labelReads;

  // ---------------- KubeActivities ----------------

  @Override
  public synchronized PodView getPod(String namespace, String name) {
    return pods.getOrDefault(name, PodView.absent(name));
  }

  @Override
  public synchronized PodView ensurePod(PodRequest r) {
    String name = r.node().pod();
    ensurePodCalls.merge(r.template().revision(), 1, Integer::sum);
    PodView p = pods.get(name);
    if (p != null) {
      return p;
    }
    String why = rejectedRevisions.get(r.template().revision());
    if (why != null) {
      // What KubeActivitiesImpl throws when the API server answers 400/422 to the create.
      throw ApplicationFailure.newNonRetryableFailure(why, KubeActivities.POD_REJECTED);
    }
    Instant created = tick();
    p =
        new PodView(
            true,
            name,
            "uid-" + (++uidSeq),
            r.template().revision(),
            unschedulable == null ? "Running" : "Pending",
            unschedulable == null,
            unschedulable == null ? "k8s-" + (r.node().ordinal() % 3) : null,
            false,
            created,
            unschedulable == null ? created : null,
            unschedulable);
    if (unschedulable != null) {
      pods.put(name, p);
      podCreations.merge(name, 1, Integer::sum);
      calls.add("createPod " + name + " " + r.template().revision() + " (Pending)");
      return p;
    }
    pods.put(name, p);
    placedOn.put(name, p.k8sNode());
    podCreations.merge(name, 1, Integer::sum);
    calls.add("createPod " + name + " " + r.template().revision());
    Node n = nodes.computeIfAbsent(name, k -> new Node());
    n.flags.remove("NOT_RESPONDING");
    if ("future".equals(n.state)) {
      n.state = "idle";
    }
    n.slurmdStart = tick();
    observeSafety();
    return p;
  }

  @Override
  public synchronized PodView deletePod(String namespace, String name, String uid) {
    PodView p = pods.get(name);
    if (p == null || (uid != null && !uid.equals(p.uid()))) {
      return PodView.absent(name);
    }
    Node n = nodes.get(name);
    if (n != null && !"down".equals(n.state) && !jobsOn(name).isEmpty()) {
      violations.add("pod " + name + " deleted while jobs " + jobsOn(name) + " run on it");
    }
    pods.remove(name);
    evictable.remove(name);
    calls.add("deletePod " + name);
    if (n != null) {
      n.flags.add("NOT_RESPONDING");
      jobs.values().removeIf(name::equals);
    }
    observeSafety();
    return PodView.absent(name);
  }

  @Override
  public synchronized void markEvictable(String namespace, String name, String uid, boolean value) {
    if (labelsDown) {
      throw ApplicationFailure.newFailure("connection refused (fake outage)", "KubeUnavailable");
    }
    PodView p = pods.get(name);
    if (p == null || (uid != null && !uid.equals(p.uid()))) {
      return;
    }
    boolean changed = value ? evictable.add(name) : evictable.remove(name);
    if (changed) {
      calls.add((value ? "label " : "unlabel ") + name);
    }
  }

  @Override
  public synchronized List<PodView> listPods(String namespace, String nodeSet) {
    List<PodView> out = new ArrayList<>();
    for (PodView p : pods.values()) {
      if (p.name().startsWith(nodeSet + "-")) {
        out.add(p);
      }
    }
    return out;
  }

  @Override
  public synchronized Map<String, String> nodeLabelValues(String key, List<String> k8sNodes) {
    checkKube();
    labelReads++;
    Map<String, String> out = new TreeMap<>();
    for (String n : k8sNodes) {
      String v = nodeLabels.getOrDefault(n, Map.of()).get(key);
      if (v != null) {
        out.put(n, v);
      }
    }
    return out;
  }

  /** Open unless {@link #holdStatusWrites} closed it; waited on outside the lock. */
  private volatile java.util.concurrent.CountDownLatch statusGate =
      new java.util.concurrent.CountDownLatch(0);

  private final java.util.concurrent.atomic.AtomicInteger statusWritesInFlight =
      new java.util.concurrent.atomic.AtomicInteger();
  private final java.util.concurrent.atomic.AtomicInteger maxStatusWritesInFlight =
      new java.util.concurrent.atomic.AtomicInteger();

  @Override
  public void writeNodeSetStatus(NodeSetRef ref, NodeSetStatusView status) {
    int now = statusWritesInFlight.incrementAndGet();
    maxStatusWritesInFlight.accumulateAndGet(now, Math::max);
    try {
      // Held writes answer when released, or after 60 s of real time at most.
      statusGate.await(60, java.util.concurrent.TimeUnit.SECONDS);
      putStatus(ref, status);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw ApplicationFailure.newFailure("interrupted", "KubeUnavailable");
    } finally {
      statusWritesInFlight.decrementAndGet();
    }
  }

  private synchronized void putStatus(NodeSetRef ref, NodeSetStatusView status) {
    checkKube();
    statuses.put(ref.toString(), status);
  }

  /**
   * A slow API server: while held, a NodeSet status write does not answer (for at most 60 s of real
   * time each); released, the held writes land.
   */
  public void holdStatusWrites(boolean hold) {
    java.util.concurrent.CountDownLatch gate = statusGate;
    if (hold && gate.getCount() == 0) {
      statusGate = new java.util.concurrent.CountDownLatch(1);
    } else if (!hold) {
      gate.countDown();
    }
  }

  /** The most NodeSet status writes that were in the API at once. */
  public int maxStatusWritesInFlight() {
    return maxStatusWritesInFlight.get();
  }

  @Override
  public synchronized void releaseNodeSet(NodeSetRef ref) {
    released.add(ref);
  }

  /** {@code spec.replicas} each autoscaled NodeSet's workflow wrote, in order. */
  public final List<Integer> replicaWrites = new java.util.concurrent.CopyOnWriteArrayList<>();

  /** Set to make replica writes fail (Kubernetes refuses). */
  public volatile boolean failReplicaWrites;

  @Override
  public void setNodeSetReplicas(NodeSetRef ref, String uid, int replicas) {
    if (failReplicaWrites) {
      throw new IllegalStateException("the API server refuses (test)");
    }
    replicaWrites.add(replicas);
  }

  @Override
  public synchronized void recordEvent(EventRequest event) {
    events.add(event);
  }

  // ---------------- SlurmActivities ----------------

  @Override
  public synchronized SlurmNodeView getNode(String name) {
    checkSlurm();
    nodeReads.merge(name, 1, Integer::sum);
    return view(name);
  }

  @Override
  public synchronized SlurmNodeView drain(String name, String reason) {
    checkSlurm();
    Node n = known(name);
    if (n.flags.contains("DRAIN") && n.reason != null && !DrainReason.ownedByTandem(n.reason)) {
      return view(name); // an administrator's drain stays as it is
    }
    n.flags.add("DRAIN");
    n.reason = reason;
    calls.add("drain " + name + " " + reason);
    observeSafety();
    return view(name);
  }

  @Override
  public synchronized SlurmNodeView undrain(String name) {
    checkSlurm();
    Node n = known(name);
    if (DrainReason.ownedByTandem(n.reason)) {
      n.flags.remove("DRAIN");
      if ("down".equals(n.state)) {
        n.state = "idle";
      }
      n.reason = null;
      calls.add("undrain " + name);
      if (pingReadsAfterUndrain > 0) {
        pinging.put(name, pingReadsAfterUndrain);
      }
    }
    observeSafety();
    return view(name);
  }

  @Override
  public synchronized NodeJobs jobsOnNode(String name) {
    checkSlurm();
    return new NodeJobs(name, jobsOn(name));
  }

  @Override
  public synchronized SlurmNodeView forceDown(String name, String reason) {
    checkSlurm();
    Node n = known(name);
    n.state = "down";
    n.reason = reason;
    jobs.values().removeIf(name::equals);
    calls.add("forceDown " + name + " " + reason);
    return view(name);
  }

  @Override
  public synchronized boolean removeNode(String name) {
    checkSlurm();
    if (!jobsOn(name).isEmpty()) {
      // Like the real adapters: a node jobs still hold is not removed (REJECTED, not retried).
      throw ApplicationFailure.newNonRetryableFailure(
          "node " + name + " is allocated (jobs still hold it)", SlurmActivities.REJECTED);
    }
    nodes.remove(name);
    calls.add("removeNode " + name);
    return true;
  }

  // ---------------- test controls ----------------

  /** Runs a job on {@code node}; returns its id. */
  public synchronized long startJob(String node) {
    long id = ++jobSeq;
    jobs.put(id, node);
    return id;
  }

  public synchronized void endJob(long id) {
    jobs.remove(id);
  }

  /** An administrator's {@code scontrol update State=DRAIN Reason=...}: replaces any reason. */
  public synchronized void adminDrain(String node, String reason) {
    Node n = known(node);
    n.flags.add("DRAIN");
    n.reason = reason;
  }

  /** An administrator's {@code scontrol update State=RESUME}: lifts any drain. */
  public synchronized void adminResume(String node) {
    Node n = known(node);
    n.flags.remove("DRAIN");
    n.reason = null;
    if ("down".equals(n.state)) {
      n.state = "idle";
    }
  }

  /**
   * The slurmd dies while its pod stays: after SlurmdTimeout Slurm marks the node DOWN, NOT
   * RESPONDING, reason "Not responding" (as slurmctld does).
   */
  public synchronized void slurmdDies(String node) {
    Node n = known(node);
    n.state = "down";
    n.flags.add("NOT_RESPONDING");
    n.reason = "Not responding";
  }

  /** The slurmd answers again; Slurm returns the node to service (ReturnToService=2). */
  public synchronized void slurmdBack(String node) {
    Node n = known(node);
    n.flags.remove("NOT_RESPONDING");
    if ("down".equals(n.state) && "Not responding".equals(n.reason)) {
      n.state = "idle";
      n.reason = null;
    }
  }

  /** {@code kubectl delete pod}: the pod goes, its slurmd stops responding, its jobs die. */
  public synchronized void deletePodBehindBack(String name) {
    pods.remove(name);
    evictable.remove(name);
    Node n = nodes.get(name);
    if (n != null) {
      n.flags.add("NOT_RESPONDING");
    }
    jobs.values().removeIf(name::equals);
  }

  /**
   * Like Slurm 22.05: after an UNDRAIN the node shows NOT_RESPONDING (slurmctld pings it again) for
   * the next {@code reads} reads, the undrain's own answer included.
   */
  public synchronized void notRespondingAfterUndrain(int reads) {
    pingReadsAfterUndrain = reads;
  }

  /**
   * What the Eviction API does under the NodeSet's PodDisruptionBudget: a pod labelled evictable
   * goes (its slurmd with it); any other is refused. Returns whether it was evicted. A pod evicted
   * while a job runs on it is a violation.
   */
  public synchronized boolean evict(String name) {
    if (!evictable.contains(name) || !pods.containsKey(name)) {
      return false;
    }
    if (!jobsOn(name).isEmpty()) {
      violations.add("pod " + name + " evicted while jobs " + jobsOn(name) + " run on it");
    }
    deletePodBehindBack(name);
    calls.add("evicted " + name);
    return true;
  }

  /**
   * New pods wait Pending with this scheduler message (no node takes them) until {@link
   * #schedulePending}; null: they run at once.
   */
  public synchronized void unschedulable(String message) {
    unschedulable = message;
  }

  /** A node takes the Pending pods again (an uncordon): they run, their slurmd registers. */
  public synchronized void schedulePending() {
    unschedulable = null;
    for (String name : List.copyOf(pods.keySet())) {
      PodView p = pods.get(name);
      if ("Pending".equals(p.phase())) {
        Instant now = tick();
        pods.put(
            name,
            new PodView(
                true,
                name,
                p.uid(),
                p.revision(),
                "Running",
                true,
                "k8s-0",
                false,
                p.createdAt(),
                now,
                null));
        Node n = nodes.computeIfAbsent(name, k -> new Node());
        n.flags.remove("NOT_RESPONDING");
        n.slurmdStart = tick();
      }
    }
  }

  /** Whether the pod carries the evictable label. */
  public synchronized boolean evictable(String name) {
    return evictable.contains(name);
  }

  /** Kubernetes refuses (retryably) to change the evictable label until switched back. */
  public synchronized void labelsDown(boolean down) {
    labelsDown = down;
  }

  /** slurmrestd outage: every Slurm call fails (retryably) until switched back. */
  public synchronized void slurmDown(boolean down) {
    slurmDown = down;
  }

  /** Kubernetes API outage: writing a NodeSet's status fails (retryably) until switched back. */
  public synchronized void kubeDown(boolean down) {
    kubeDown = down;
  }

  /** Labels Kubernetes node {@code k8sNode} (pods go to {@code k8s-<ordinal % 3>}). */
  public synchronized void labelNode(String k8sNode, String key, String value) {
    nodeLabels.computeIfAbsent(k8sNode, k -> new TreeMap<>()).put(key, value);
  }

  /**
   * Watches the tracked nodes by topology domain too (the value of {@code key} on the Kubernetes
   * node each pod was placed on): how many domains have nodes out at once, the most out per domain,
   * and the order in which domains first went out.
   */
  public synchronized void trackDomains(String key) {
    domainKey = key;
    maxDomainsOut = 0;
    maxOutPerDomain.clear();
    domainsTaken.clear();
  }

  public synchronized int maxDomainsOut() {
    return maxDomainsOut;
  }

  public synchronized Map<String, Integer> maxOutPerDomain() {
    return Map.copyOf(maxOutPerDomain);
  }

  public synchronized List<String> domainsTaken() {
    return List.copyOf(domainsTaken);
  }

  public synchronized int labelReads() {
    return labelReads;
  }

  /** Which nodes the out-of-service maximum is computed over. */
  public synchronized void track(Set<String> names) {
    trackedNodes = Set.copyOf(names);
    maxOutOfService = 0;
  }

  /** Pod creates at {@code revision} are refused as invalid, as a real API server would. */
  public synchronized void rejectRevision(String revision, String why) {
    rejectedRevisions.put(revision, why);
  }

  /** How many times ensurePod was called with {@code revision} (created, found, or refused). */
  /** How many times a workflow read the Slurm node {@code name} ({@code getNode}). */
  public synchronized int nodeReads(String name) {
    return nodeReads.getOrDefault(name, 0);
  }

  public synchronized int ensurePodCalls(String revision) {
    return ensurePodCalls.getOrDefault(revision, 0);
  }

  public synchronized int maxOutOfService() {
    return maxOutOfService;
  }

  public synchronized List<String> violations() {
    return List.copyOf(violations);
  }

  public synchronized List<String> calls() {
    return List.copyOf(calls);
  }

  public synchronized Map<String, PodView> pods() {
    return Map.copyOf(pods);
  }

  public synchronized int podCreations(String name) {
    return podCreations.getOrDefault(name, 0);
  }

  public synchronized SlurmNodeView slurmNode(String name) {
    return view(name);
  }

  public synchronized NodeSetStatusView status(String nsName) {
    return statuses.get(nsName);
  }

  public synchronized List<NodeSetRef> released() {
    return List.copyOf(released);
  }

  public synchronized List<EventRequest> events() {
    return List.copyOf(events);
  }

  // ---------------- internals ----------------

  private Instant tick() {
    clock += 1;
    return Instant.ofEpochSecond(clock);
  }

  private void checkSlurm() {
    if (slurmDown) {
      throw ApplicationFailure.newFailure("connection refused (fake outage)", "SlurmUnavailable");
    }
  }

  private void checkKube() {
    if (kubeDown) {
      throw ApplicationFailure.newFailure("connection refused (fake outage)", "KubeUnavailable");
    }
  }

  private Node known(String name) {
    Node n = nodes.get(name);
    if (n == null) {
      throw ApplicationFailure.newNonRetryableFailure(
          "Invalid node name specified: " + name, SlurmActivities.REJECTED);
    }
    return n;
  }

  private List<Long> jobsOn(String name) {
    List<Long> ids = new ArrayList<>();
    jobs.forEach(
        (id, n) -> {
          if (n.equals(name)) {
            ids.add(id);
          }
        });
    return ids;
  }

  private SlurmNodeView view(String name) {
    Node n = nodes.get(name);
    if (n == null) {
      return SlurmNodeView.unknown(name, tick());
    }
    String state = n.state;
    if ("idle".equals(state) && !jobsOn(name).isEmpty()) {
      state = "allocated";
    }
    Set<String> flags = n.flags;
    int pings = pinging.getOrDefault(name, 0);
    if (pings > 0) {
      pinging.put(name, pings - 1);
      flags = new HashSet<>(n.flags);
      flags.add("NOT_RESPONDING");
    }
    return new SlurmNodeView(
        name,
        true,
        state,
        flags,
        n.reason,
        n.reason == null ? null : "root",
        n.slurmdStart,
        tick());
  }

  /** Out of service: no running pod, or drained/down in Slurm. */
  private void observeSafety() {
    int out = 0;
    Map<String, Integer> outByDomain = new TreeMap<>();
    for (String name : trackedNodes) {
      PodView p = pods.get(name);
      Node n = nodes.get(name);
      boolean serving =
          p != null
              && n != null
              && !n.flags.contains("DRAIN")
              && !"down".equals(n.state)
              && !n.flags.contains("NOT_RESPONDING");
      if (!serving) {
        out++;
        if (domainKey != null) {
          String d =
              nodeLabels.getOrDefault(placedOn.get(name), Map.of()).getOrDefault(domainKey, "");
          outByDomain.merge(d, 1, Integer::sum);
        }
      }
    }
    maxOutOfService = Math.max(maxOutOfService, out);
    maxDomainsOut = Math.max(maxDomainsOut, outByDomain.size());
    outByDomain.forEach(
        (d, c) -> {
          maxOutPerDomain.merge(d, c, Math::max);
          if (!domainsTaken.contains(d)) {
            domainsTaken.add(d);
          }
        });
  }
}
