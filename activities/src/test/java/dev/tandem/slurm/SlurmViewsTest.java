package dev.tandem.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SlurmViewsTest {
  private static final Instant T = Instant.parse("2026-11-24T02:30:33Z");

  private static SlurmJob job(String state, Set<String> flags, Instant preempt) {
    return new SlurmJob(
        7,
        "tandem-pod-u",
        "tandem.dev/pod-uid=u",
        state,
        flags,
        null,
        "e2e-0",
        List.of("e2e-0"),
        "tandem",
        null,
        null,
        "root",
        0,
        T,
        T,
        null,
        preempt,
        null,
        null,
        SlurmJob.Request.UNKNOWN);
  }

  @Test
  void aPreemptedPlaceholderStillBeingKilledIsShownPreempted() {
    // What 22.05's slurmrestd answers during KillWait after a preemption (checked on the real one).
    assertEquals("PREEMPTED", SlurmViews.job(job("COMPLETING", Set.of(), T), T).state());
    // Newer APIs: the base state with a COMPLETING flag.
    assertEquals("PREEMPTED", SlurmViews.job(job("PREEMPTED", Set.of("COMPLETING"), T), T).state());
    assertEquals("PREEMPTED", SlurmViews.job(job("CANCELLED", Set.of("COMPLETING"), T), T).state());
  }

  @Test
  void otherStatesAreShownAsSlurmSaysThem() {
    assertEquals("COMPLETING", SlurmViews.job(job("COMPLETING", Set.of(), null), T).state());
    assertEquals("RUNNING", SlurmViews.job(job("RUNNING", Set.of(), null), T).state());
    assertEquals("CANCELLED", SlurmViews.job(job("CANCELLED", Set.of(), null), T).state());
  }
}
