package dev.tandem.e2e;

import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Samples a rolling update by topology domain from the outside (Slurm through slurmrestd, pods
 * through the Kubernetes API) and records what the rollout promises:
 *
 * <ol>
 *   <li>On every poll, the nodes out of service ({@link OutOfService}: pod not running, Slurm node
 *       absent, FUTURE, down, drained or not responding, with the ping grace after a RESUME) are
 *       grouped by the domain each node had when the rollout began (a replacement pod that lands
 *       elsewhere still counts where it was taken from, as Tandem counts it).
 *   <li>Nodes of two domains out on two polls in a row is a breach (one poll can see a pod and
 *       Slurm a moment apart, as in {@link InvariantMonitor}); so is more than {@code maxPerDomain}
 *       of one domain out on two polls in a row.
 *   <li>It keeps the order in which domains first went out, and the most of each seen out at once.
 * </ol>
 */
final class DomainSampler implements AutoCloseable {
  private final SlurmClient slurm;
  private final KubernetesClient k8s;
  private final Map<String, String> domainOf;
  private final int maxPerDomain;
  private final Duration poll;
  private final OutOfService outOfService = new OutOfService(OutOfService.PING_GRACE);

  private final List<String> violations = Collections.synchronizedList(new ArrayList<>());
  private final List<String> taken = Collections.synchronizedList(new ArrayList<>());
  private final Map<String, Integer> maxOut = Collections.synchronizedMap(new TreeMap<>());
  private volatile int maxDomainsOnOnePoll;
  private volatile int twoDomainPolls;
  private volatile int overBudgetPolls;
  private volatile long polls;
  private volatile boolean closed;
  private final Thread thread;

  /**
   * @param domainOf each pod's domain when the rollout begins
   * @param maxPerDomain at most this many of one domain out at once
   */
  DomainSampler(
      SlurmClient slurm,
      KubernetesClient k8s,
      Map<String, String> domainOf,
      int maxPerDomain,
      Duration poll) {
    this.slurm = slurm;
    this.k8s = k8s;
    this.domainOf = Map.copyOf(domainOf);
    this.maxPerDomain = maxPerDomain;
    this.poll = poll;
    this.thread = new Thread(this::loop, "domain-sampler");
    thread.setDaemon(true);
    thread.start();
  }

  List<String> violations() {
    return List.copyOf(violations);
  }

  /** The domains in the order they first had a node out. */
  List<String> domainsTaken() {
    return List.copyOf(taken);
  }

  Map<String, Integer> maxOutPerDomain() {
    return Map.copyOf(maxOut);
  }

  int maxDomainsOnOnePoll() {
    return maxDomainsOnOnePoll;
  }

  long polls() {
    return polls;
  }

  private void loop() {
    while (!closed) {
      try {
        check();
        polls++;
      } catch (RuntimeException e) {
        // a failed read judges nothing; the next poll tries again
      }
      try {
        Thread.sleep(poll.toMillis());
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private void check() {
    Map<String, SlurmNode> nodes = new HashMap<>();
    for (SlurmNode n : slurm.listNodes(null).items()) {
      nodes.put(n.name(), n);
    }
    Map<String, Pod> pods = new HashMap<>();
    for (Pod p : k8s.pods().inNamespace("default").list().getItems()) {
      pods.put(p.getMetadata().getName(), p);
    }
    Instant now = Instant.now();
    Map<String, List<String>> out = new TreeMap<>();
    for (Map.Entry<String, String> e : domainOf.entrySet()) {
      Pod p = pods.get(e.getKey());
      boolean running =
          p != null
              && p.getMetadata().getDeletionTimestamp() == null
              && p.getStatus() != null
              && "Running".equals(p.getStatus().getPhase());
      if (outOfService.out(e.getKey(), running, nodes.get(e.getKey()), now)) {
        out.computeIfAbsent(e.getValue(), k -> new ArrayList<>()).add(e.getKey());
      }
    }
    maxDomainsOnOnePoll = Math.max(maxDomainsOnOnePoll, out.size());
    boolean over = false;
    for (Map.Entry<String, List<String>> e : out.entrySet()) {
      maxOut.merge(e.getKey(), e.getValue().size(), Math::max);
      if (!taken.contains(e.getKey())) {
        taken.add(e.getKey());
      }
      over |= e.getValue().size() > maxPerDomain;
    }
    twoDomainPolls = out.size() > 1 ? twoDomainPolls + 1 : 0;
    if (twoDomainPolls == 2) {
      violations.add(now + " nodes of two domains out of service at once: " + out);
    }
    overBudgetPolls = over ? overBudgetPolls + 1 : 0;
    if (overBudgetPolls == 2) {
      violations.add(now + " more than " + maxPerDomain + " of one domain out: " + out);
    }
  }

  @Override
  public void close() {
    closed = true;
    thread.interrupt();
  }
}
