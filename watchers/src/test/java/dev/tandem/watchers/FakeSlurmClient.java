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
import java.util.concurrent.atomic.AtomicInteger;

/** A SlurmClient over an in-memory node table, with incremental listings like slurmrestd's. */
class FakeSlurmClient implements SlurmClient {
  private final Map<String, SlurmNode> nodes = new TreeMap<>();
  private long version = 1;
  volatile boolean down;
  final AtomicInteger nodeCalls = new AtomicInteger();
  final AtomicInteger unchangedAnswers = new AtomicInteger();

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
    if (down) {
      throw new SlurmUnavailableException("connection refused (fake)");
    }
    return Listing.unchanged(Instant.ofEpochSecond(1));
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
  public void cancel(long id, String signal) {}

  @Override
  public void close() {}
}
