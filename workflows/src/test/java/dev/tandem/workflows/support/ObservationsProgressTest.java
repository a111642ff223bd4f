package dev.tandem.workflows.support;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmJobView;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ObservationsProgressTest {
  private static PodView pod(String node, boolean terminating, String phase) {
    return new PodView(
        true, "p", "u", null, phase, true, node, terminating, Instant.EPOCH, null, null, null);
  }

  private static SlurmJobView job(long id, String state, int restarts) {
    return new SlurmJobView(id, "n", "c", state, null, List.of(), restarts, null);
  }

  @Test
  void aPodViewThatGoesBackIsStale() {
    PodView waiting = pod(null, false, "Pending");
    PodView bound = pod("k1", false, "Running");
    PodView ending = pod("k1", true, "Running");
    PodView done = pod("k1", false, "Succeeded");
    PodView gone = PodView.absent("p");
    assertSame(bound, Observations.newerPod(waiting, bound));
    assertSame(gone, Observations.newerPod(bound, gone));
    assertSame(gone, Observations.newerPod(gone, bound), "a bind answer read before the delete");
    assertSame(ending, Observations.newerPod(ending, bound));
    assertSame(done, Observations.newerPod(done, bound));
    assertSame(bound, Observations.newerPod(bound, null));
    assertSame(waiting, Observations.newerPod(null, waiting));
  }

  @Test
  void aViewOfAnEarlierPodOfTheNameIsToldApart() {
    Instant t = Instant.parse("2026-11-28T10:00:00Z");
    PodView held = new PodView(true, "p", "new", "b", "Running", true, "k1", false, t, t, null);
    PodView old =
        new PodView(
            true, "p", "old", "a", "Running", false, "k1", true, t.minusSeconds(60), t, null);
    assertTrue(Observations.earlierPod(held, old));
    assertTrue(Observations.earlierPod(held, PodView.gone("p", "old", t.minusSeconds(60))));
    assertFalse(Observations.earlierPod(held, PodView.gone("p", "new", t)), "the pod held");
    assertFalse(Observations.earlierPod(old, held), "a later pod");
    assertFalse(Observations.earlierPod(held, PodView.absent("p")), "no uid: cannot tell");
    assertFalse(
        Observations.earlierPod(held, PodView.gone("p", "other", t)),
        "the same second: cannot tell");
    assertFalse(Observations.earlierPod(null, old));
    assertFalse(Observations.earlierPod(PodView.absent("p"), old));
  }

  @Test
  void aJobViewThatGoesBackIsStaleUnlessItWasRequeued() {
    SlurmJobView pending = job(1, "PENDING", 0);
    SlurmJobView running = job(1, "RUNNING", 0);
    SlurmJobView preempted = job(1, "PREEMPTED", 0);
    SlurmJobView requeued = job(1, "PENDING", 1);
    assertSame(running, Observations.newerJob(running, pending), "a submit answer read earlier");
    assertSame(running, Observations.newerJob(pending, running));
    assertSame(preempted, Observations.newerJob(preempted, running));
    assertSame(requeued, Observations.newerJob(running, requeued));
    SlurmJobView other = job(2, "PENDING", 0);
    assertSame(other, Observations.newerJob(running, other), "another job is not compared");
  }

  @Test
  void aSignalledJobIsTakenInOrderUnlessItComesBackFromItsEnd() {
    SlurmJobView running = job(1, "RUNNING", 0);
    SlurmJobView queuedAgain = job(1, "PENDING", 0); // a requeue the watcher saw
    SlurmJobView cancelled = job(1, "CANCELLED", 0);
    assertSame(queuedAgain, Observations.signalledJob(running, queuedAgain));
    assertSame(cancelled, Observations.signalledJob(cancelled, running), "sent before the cancel");
    SlurmJobView requeued = job(1, "PENDING", 1);
    assertSame(requeued, Observations.signalledJob(cancelled, requeued));
  }
}
