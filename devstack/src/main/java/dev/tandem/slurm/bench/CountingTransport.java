package dev.tandem.slurm.bench;

import dev.tandem.slurm.SlurmTransport;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A transport that counts what passes through it: requests, and the bytes of the answers' bodies
 * (UTF-8, as the client receives them; headers are not counted). Benchmarks read and reset the
 * counters around what they measure, so a figure is what Tandem's client itself asked and got.
 */
public final class CountingTransport implements SlurmTransport {
  private final SlurmTransport delegate;
  private final AtomicLong requests = new AtomicLong();
  private final AtomicLong bytes = new AtomicLong();

  public CountingTransport(SlurmTransport delegate) {
    this.delegate = delegate;
  }

  @Override
  public Response send(Request request) {
    requests.incrementAndGet();
    Response r = delegate.send(request);
    bytes.addAndGet(r.utf8Length());
    return r;
  }

  /** Requests and answer bytes since the last reset. */
  public record Counts(long requests, long bytes) {}

  /** The counts so far, and zero for what follows. */
  public Counts takeCounts() {
    return new Counts(requests.getAndSet(0), bytes.getAndSet(0));
  }

  @Override
  public void close() {
    delegate.close();
  }
}
