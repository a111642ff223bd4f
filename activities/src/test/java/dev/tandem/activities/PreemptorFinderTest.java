package dev.tandem.activities;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmClient.Listing;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmNotFoundException;
import dev.tandem.workflows.schedule.Preemptor;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The preempting job, found the only way Slurm allows (no slurmrestd version names it): the job
 * running on the preempted job's nodes that started at or after its {@code preempt_time}.
 */
class PreemptorFinderTest {
  private static final Instant T = Instant.parse("2026-01-02T03:04:05Z");

  private final SlurmClient slurm = mock(SlurmClient.class);
  private final PreemptorFinder finder =
      new PreemptorFinder(slurm, Clock.fixed(T.plusSeconds(10), ZoneOffset.UTC));

  static SlurmJob job(
      long id, String state, List<String> nodes, String partition, Instant start, Instant preempt) {
    return new SlurmJob(
        id,
        "j" + id,
        null,
        state,
        Set.of(),
        "None",
        String.join(",", nodes),
        nodes,
        partition,
        null,
        "normal",
        "u",
        0,
        start,
        start,
        null,
        preempt,
        null,
        null,
        SlurmJob.Request.UNKNOWN);
  }

  @Test
  void theJobThatStartedOnTheNodeAfterThePreemptionIsThePreemptor() {
    when(slurm.getJob(12))
        .thenReturn(job(12, "PREEMPTED", List.of("n3"), "low", T.minusSeconds(60), T));
    when(slurm.listJobs(null))
        .thenReturn(
            new Listing<>(
                true,
                List.of(
                    job(12, "PREEMPTED", List.of("n3"), "low", T.minusSeconds(60), T),
                    // Shared the node before the preemption: not the preemptor.
                    job(9, "RUNNING", List.of("n3"), "low", T.minusSeconds(90), null),
                    // Started after, elsewhere: not either.
                    job(40, "RUNNING", List.of("n4"), "high", T.plusSeconds(1), null),
                    job(57, "RUNNING", List.of("n2", "n3"), "high", T.plusSeconds(5), null),
                    job(58, "RUNNING", List.of("n3"), "high", T.plusSeconds(6), null)),
                T));
    Preemptor p = finder.find(12, List.of("n9"));
    assertEquals(57, p.byJob());
    assertEquals("high", p.byPartition());
    assertEquals("normal", p.byQos());
    assertEquals(List.of("n3"), p.nodes(), "Slurm's record of the job wins");
    assertEquals(
        "Slurm job 57 (partition high, QOS normal) started on n3 at 2026-01-02T03:04:10Z: it"
            + " preempted job 12 at 2026-01-02T03:04:05Z",
        p.message(5));
  }

  @Test
  void noneYetSaysWhatIsKnownAndCallersShareOneListing() {
    when(slurm.getJob(12))
        .thenReturn(job(12, "PREEMPTED", List.of("n3"), "low", T.minusSeconds(60), T));
    when(slurm.listJobs(null))
        .thenReturn(
            new Listing<>(
                true,
                List.of(job(12, "PREEMPTED", List.of("n3"), "low", T.minusSeconds(60), T)),
                T));
    Preemptor p = finder.find(12, List.of());
    finder.find(12, List.of());
    verify(slurm, times(1)).listJobs(null);
    assertFalse(p.found());
    assertEquals(
        "no other job started on n3 within 40 s of job 12's preemption at 2026-01-02T03:04:05Z:"
            + " Slurm does not name the preempting job",
        p.message(40));
  }

  @Test
  void aPurgedJobFallsBackToTheNodesTheWorkflowKnows() {
    when(slurm.getJob(12)).thenThrow(new SlurmNotFoundException("no job 12"));
    Preemptor p = finder.find(12, List.of("n3"));
    assertFalse(p.found());
    assertNull(p.preemptedAt());
    assertEquals(
        "no other job started on n3 within 40 s of job 12's preemption: Slurm does not name the"
            + " preempting job",
        p.message(40));
  }
}
