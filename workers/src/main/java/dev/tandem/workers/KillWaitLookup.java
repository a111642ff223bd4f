package dev.tandem.workers;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Slurm's {@code KillWait} at worker start, once: a pod's grace period is checked against it, so a
 * wrong value either refuses good pods or lets a preempted pod be killed mid-shutdown.
 *
 * <ol>
 *   <li>Ask Slurm ({@code SlurmClient.killWait()}: Slurm 22.05's {@code scontrol show config};
 *       newer REST APIs report nothing), on a daemon thread, for at most {@link #TIMEOUT}: the
 *       worker never waits on Slurm to start.
 *   <li>A value from Slurm is used as it is. Nothing reported, an error, or no answer in time → the
 *       configured fallback ({@code TANDEM_SCHED_KILL_WAIT}); an unreachable Slurm is logged at
 *       WARN, since the fallback may then be wrong for this cluster.
 *   <li>The value and its source are logged at INFO either way.
 * </ol>
 */
public final class KillWaitLookup {
  private static final Logger log = LoggerFactory.getLogger(KillWaitLookup.class);

  /** How long start waits for Slurm's answer. */
  static final Duration TIMEOUT = Duration.ofSeconds(5);

  /** Where the value in force came from. */
  public enum Source {
    SLURM,
    /** Slurm answered, but its API does not report KillWait. */
    CONFIGURED,
    /** Slurm did not answer (error or timeout). */
    CONFIGURED_SLURM_UNREACHABLE
  }

  public record Result(long seconds, Source source) {}

  private KillWaitLookup() {}

  public static Result resolve(
      Supplier<Optional<Duration>> fromSlurm, long fallbackSeconds, Duration timeout) {
    Result r;
    CompletableFuture<Optional<Duration>> f = new CompletableFuture<>();
    Thread t =
        new Thread(
            () -> {
              try {
                f.complete(fromSlurm.get());
              } catch (RuntimeException | Error e) {
                f.completeExceptionally(e);
              }
            },
            "tandem-killwait");
    t.setDaemon(true);
    t.start();
    try {
      Optional<Duration> d = f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (d != null && d.isPresent() && !d.get().isNegative()) {
        r = new Result(d.get().toSeconds(), Source.SLURM);
        log.info("Slurm KillWait is {}s (read from Slurm)", r.seconds());
      } else {
        r = new Result(fallbackSeconds, Source.CONFIGURED);
        log.info(
            "Slurm KillWait is {}s (from {}: this Slurm REST API does not report KillWait)",
            fallbackSeconds,
            SchedulingSettings.KILL_WAIT);
      }
      return r;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return unreachable(fallbackSeconds, "interrupted");
    } catch (TimeoutException e) {
      return unreachable(fallbackSeconds, "no answer within " + timeout.toMillis() + "ms");
    } catch (ExecutionException e) {
      Throwable c = e.getCause() == null ? e : e.getCause();
      return unreachable(fallbackSeconds, c.getMessage() == null ? c.toString() : c.getMessage());
    }
  }

  private static Result unreachable(long fallbackSeconds, String why) {
    log.warn(
        "cannot read KillWait from Slurm ({}); using {}={}s. If Slurm's KillWait differs, pods"
            + " are checked against the wrong grace limit until the worker restarts",
        why,
        SchedulingSettings.KILL_WAIT,
        fallbackSeconds);
    return new Result(fallbackSeconds, Source.CONFIGURED_SLURM_UNREACHABLE);
  }
}
