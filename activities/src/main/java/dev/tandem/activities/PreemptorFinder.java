package dev.tandem.activities;

import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmException;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmNotFoundException;
import dev.tandem.workflows.schedule.Preemptor;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * {@code SchedulingActivities.findPreemptor}: no slurmrestd version (v0.0.38, v0.0.41, v0.0.44)
 * names the job that preempted another; the preempted job's record keeps its nodes and {@code
 * preempt_time}. The preemptor is the job, other than the preempted one, that is RUNNING on one of
 * those nodes and started at or after that time (the preempted job's own start when Slurm gives no
 * preemption time, so a job that already shared the node is not taken for it); of several, the
 * first started (then the lowest id).
 *
 * <p>A preempted pod's workflow asks on every poll until the preemptor starts ({@code KillWait}
 * after the preemption at most), and a preemption often takes many pods at once: the listings are
 * shared by every caller of the worker ({@link SingleFlight}, at most {@link #FRESH} old), so a
 * thousand pods preempted together cost about one listing a second, not a thousand.
 */
final class PreemptorFinder {
  /** How old a shared listing may be: a preemptor found a second late is still news. */
  static final Duration FRESH = Duration.ofSeconds(1);

  private final SlurmClient slurm;
  private final SingleFlight<List<SlurmJob>> running;

  PreemptorFinder(SlurmClient slurm, Clock clock) {
    this.slurm = Objects.requireNonNull(slurm, "slurm");
    this.running =
        new SingleFlight<>(
            clock,
            began ->
                slurm.listJobs(null).items().stream()
                    .filter(j -> "RUNNING".equals(j.state()))
                    .toList());
  }

  Preemptor find(long jobId, List<String> nodes) {
    String what = "find the job that preempted job " + jobId;
    try {
      SlurmJob mine = mine(jobId);
      List<String> on =
          mine != null && !mine.nodeList().isEmpty()
              ? mine.nodeList()
              : nodes == null ? List.of() : nodes;
      Instant at = mine == null ? null : mine.preemptTime();
      Instant since = at != null ? at : mine == null ? null : mine.startTime();
      Optional<SlurmJob> by =
          since == null || on.isEmpty()
              ? Optional.empty()
              : running.get(FRESH).stream()
                  .filter(j -> j.id() != jobId)
                  .filter(j -> j.startTime() != null && !j.startTime().isBefore(since))
                  .filter(j -> j.nodeList().stream().anyMatch(on::contains))
                  .min(Comparator.comparing(SlurmJob::startTime).thenComparingLong(SlurmJob::id));
      return by.map(
              j -> new Preemptor(jobId, on, at, j.id(), j.partition(), j.qos(), j.startTime()))
          .orElseGet(() -> new Preemptor(jobId, on, at, 0, null, null, null));
    } catch (SlurmException e) {
      throw SlurmFailures.translate(what, e);
    }
  }

  /** Slurm's record of the preempted job, or null once Slurm has purged it. */
  private SlurmJob mine(long jobId) {
    try {
      return slurm.getJob(jobId);
    } catch (SlurmNotFoundException e) {
      return null;
    }
  }
}
