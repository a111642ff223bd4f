package dev.tandem.watchers;

import dev.tandem.slurm.JobSubmission;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmNode;
import dev.tandem.slurm.SlurmUnavailableException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A SlurmClient over in-memory node and job tables, with incremental listings like slurmrestd's.
 */
class FakeSlurmClient implements SlurmClient {
  private final Map<String, SlurmNode> nodes = new TreeMap<>();
  private final Map<Long, SlurmJob> jobs = new TreeMap<>();
  private long version = 1;
  private long jobsVersion = 1;
  final List<Long> cancels = new CopyOnWriteArrayList<>();
  volatile boolean cancelFails;
  volatile boolean down;
  final AtomicInteger nodeCalls = new AtomicInteger();
  final AtomicInteger fullNodeListings = new AtomicInteger();
  final AtomicInteger jobCalls = new AtomicInteger();
  final AtomicInteger unchangedAnswers = new AtomicInteger();
  final AtomicInteger unchangedJobAnswers = new AtomicInteger();

  synchronized void put(String name, String state, Set<String> flags, String reason) {
    nodes.put(
        name,
        new SlurmNode(
            name,
            state,
            flags,
            reason,
            reason == null ? null : "root",
            null,
            2,
            0,
            1000,
            "",
            "",
            List.of("low"),
            List.of(),
            "127.0.0.1",
            "vm",
            Instant.ofEpochSecond(1000),
            null,
            "22.05.8"));
    version++;
  }

  /** A job named {@code name} with comment {@code comment} in {@code state} on {@code nodes}. */
  synchronized void putJob(long id, String name, String comment, String state, List<String> on) {
    jobs.put(
        id,
        new SlurmJob(
            id,
            name,
            comment,
            state,
            Set.of(),
            "None",
            String.join(",", on),
            on,
            "gpu",
            null,
            null,
            "tandem",
            0,
            null,
            null,
            null,
            null,
            null,
            null,
            SlurmJob.Request.UNKNOWN));
    jobsVersion++;
  }

  /** A job as given (any partition, reason and request). */
  synchronized void putJob(SlurmJob j) {
    jobs.put(j.id(), j);
    jobsVersion++;
  }

  /** A placeholder job tagged {@code tag}, as {@code PlaceholderTag} writes it. */
  void putPlaceholder(long id, String tag, String state, List<String> on) {
    putJob(id, "tandem-pod-" + tag, "tandem.dev/pod-uid=" + tag, state, on);
  }

  synchronized void removeJob(long id) {
    jobs.remove(id);
    jobsVersion++;
  }

  synchronized SlurmJob job(long id) {
    return jobs.get(id);
  }

  synchronized void remove(String name) {
    nodes.remove(name);
    version++;
  }

  @Override
  public ApiVersion apiVersion() {
    return ApiVersion.V0_0_38;
  }

  @Override
  public Ping ping() {
    return new Ping(true, "22.05.8", "local");
  }

  @Override
  public synchronized Listing<SlurmNode> listNodes(Instant since) {
    nodeCalls.incrementAndGet();
    if (down) {
      throw new SlurmUnavailableException("connection refused (fake)");
    }
    if (since == null) {
      fullNodeListings.incrementAndGet();
    }
    Instant now = Instant.ofEpochSecond(version);
    if (since != null && since.equals(now)) {
      unchangedAnswers.incrementAndGet();
      return Listing.unchanged(now);
    }
    return new Listing<>(true, new ArrayList<>(nodes.values()), now);
  }

  @Override
  public synchronized SlurmNode getNode(String name) {
    return nodes.get(name);
  }

  @Override
  public synchronized Listing<SlurmJob> listJobs(Instant since) {
    jobCalls.incrementAndGet();
    if (down) {
      throw new SlurmUnavailableException("connection refused (fake)");
    }
    Instant now = Instant.ofEpochSecond(jobsVersion);
    if (since != null && since.equals(now)) {
      unchangedJobAnswers.incrementAndGet();
      return Listing.unchanged(now);
    }
    return new Listing<>(true, new ArrayList<>(jobs.values()), now);
  }

  @Override
  public void drain(String node, String reason) {}

  @Override
  public void undrain(String node) {}

  @Override
  public void resume(String node) {}

  @Override
  public void down(String node, String reason) {}

  @Override
  public void deleteNode(String node) {}

  @Override
  public long submit(JobSubmission job) {
    return 0;
  }

  @Override
  public SlurmJob getJob(long id) {
    return null;
  }

  @Override
  public void cancel(long id, String signal) {
    if (cancelFails) {
      throw new SlurmUnavailableException("connection refused (fake)");
    }
    cancels.add(id);
    SlurmJob j;
    synchronized (this) {
      j = jobs.get(id);
    }
    if (j != null) {
      putJob(id, j.name(), j.comment(), "CANCELLED", j.nodeList());
    }
  }

  @Override
  public void close() {}
}
