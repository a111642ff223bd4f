package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.model.SlurmJobView;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * Routing of placeholder jobs to their workflows and the orphan rules, with a fake Slurm and fake
 * routes; time is passed in, so the 10 s bound costs no waiting.
 */
class SlurmJobTrackerTest extends WatcherTestBase {
  static final String UID = "6f1c0a2e-1111-2222-3333-444455556666";
  static final String WF = "schedule/ml/train-0/" + UID;
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  private final FakeSlurmClient slurm = new FakeSlurmClient();
  private final Routes routes = new Routes();
  private final SlurmJobTracker tracker =
      new SlurmJobTracker(slurm, coalescer, signals, metrics, Duration.ofSeconds(10));

  /** Tag → workflow id, and whether the (pretend) pod cache is trustworthy. */
  static final class Routes implements JobRoutes {
    final Map<String, String> byTag = new ConcurrentHashMap<>();
    volatile boolean known = true;

    @Override
    public Optional<String> workflowIdForTag(String tag) {
      return Optional.ofNullable(byTag.get(tag));
    }

    @Override
    public boolean routesKnown() {
      return known;
    }
  }

  {
    tracker.routes(routes);
  }

  private void poll(long secondsAfterT0) throws InterruptedException {
    tracker.poll(false, T0.plusSeconds(secondsAfterT0));
    assertTrue(coalescer.drain(Duration.ofSeconds(10)));
  }

  private double cancelledCount(String reason) {
    return registry.get("tandem.orphan.jobs.cancelled").tag("reason", reason).counter().count();
  }

  private List<SlurmJobView> observed(String workflowId) {
    return signals
        .matching(s -> s.target().equals(workflowId) && s.signal().equals("jobObserved"))
        .stream()
        .map(s -> (SlurmJobView) s.payload())
        .toList();
  }

  @Test
  void taggedJobsGoToTheWorkflowTheirTagRoutesToAndOthersAreIgnored() throws Exception {
    routes.byTag.put(UID, WF);
    slurm.putPlaceholder(7, UID, "PENDING", List.of());
    slurm.putJob(8, "tandem-pod-" + UID, "tandem.dev/pod-uid=other", "RUNNING", List.of("n1"));
    slurm.putJob(9, "old", WF, "RUNNING", List.of("n1")); // the old "comment = workflow id" rule
    slurm.putJob(10, "user-job", null, "RUNNING", List.of("n1"));
    poll(0);
    // First seen waiting: what the submit already answered, not worth a workflow task.
    assertEquals(0, signals.named("jobObserved").size(), signals.all().toString());

    slurm.putPlaceholder(7, UID, "RUNNING", List.of("n1"));
    poll(2);
    assertEquals(1, signals.named("jobObserved").size(), signals.all().toString());
    assertEquals(7, observed(WF).get(0).id());
    assertEquals("RUNNING", observed(WF).get(0).state());
    poll(4); // unchanged: nothing
    assertEquals(1, observed(WF).size());

    slurm.removeJob(7);
    poll(6);
    assertEquals(SlurmJobView.GONE, observed(WF).get(1).state());
    assertEquals(List.of(), slurm.cancels, "untagged and mismatched jobs are never cancelled");
  }

  @Test
  void aJobStillWaitingSixSecondsAfterItWasFirstListedIsSentOnceSoItsPodIsToldItIsQueued()
      throws Exception {
    routes.byTag.put(UID, WF);
    String soon = "uid-started-sooner";
    String wfSoon = "schedule/ml/soon/" + soon;
    routes.byTag.put(soon, wfSoon);
    slurm.putPlaceholder(7, UID, "PENDING", List.of());
    slurm.putPlaceholder(8, soon, "PENDING", List.of());
    poll(0);
    slurm.putPlaceholder(8, soon, "RUNNING", List.of("n1"));
    poll(2);
    assertEquals(List.of(), observed(WF), "first seen waiting: what the submit answered");
    poll(5); // unchanged listings: the clock alone decides
    assertEquals(List.of(), observed(WF), "not before " + SlurmJobTracker.QUEUED_SIGNAL_AFTER);
    poll(6);
    assertEquals(1, observed(WF).size());
    assertEquals(7, observed(WF).get(0).id());
    assertEquals("PENDING", observed(WF).get(0).state());
    poll(7);
    poll(30);
    assertEquals(1, observed(WF).size(), "once");
    assertEquals(List.of("RUNNING"), observed(wfSoon).stream().map(SlurmJobView::state).toList());
    assertTrue(slurm.unchangedJobAnswers.get() > 0, "the case under test: 304 answers");
  }

  @Test
  void aJobWhoseOwnerAppearsLaterIsSentThen() throws Exception {
    slurm.putPlaceholder(7, UID, "RUNNING", List.of("n1"));
    routes.known = false; // pod cache not listed yet
    poll(0);
    assertTrue(signals.named("jobObserved").isEmpty());
    routes.byTag.put(UID, WF);
    routes.known = true;
    slurm.putPlaceholder(8, "other-uid", "PENDING", List.of()); // any change of the listing
    routes.byTag.put("other-uid", "schedule/ml/other/other-uid");
    poll(1);
    assertEquals(1, observed(WF).size());
  }

  @Test
  void anUnownedJobIsCancelledAfterTwoPollsAndTenSeconds() throws Exception {
    slurm.putPlaceholder(7, UID, "RUNNING", List.of("n1"));
    poll(0);
    poll(5); // two polls, 5 s
    assertEquals(List.of(), slurm.cancels);
    poll(9);
    assertEquals(List.of(), slurm.cancels);
    poll(10);
    assertEquals(List.of(7L), slurm.cancels);
    assertEquals(1.0, cancelledCount("no-owner"));
    poll(12);
    poll(30);
    assertEquals(List.of(7L), slurm.cancels, "an ended job is not cancelled again");
  }

  @Test
  void oneLatePollIsNotEnough() throws Exception {
    slurm.putPlaceholder(7, UID, "PENDING", List.of());
    poll(0);
    routes.byTag.put(UID, WF); // the pod turned up: the count starts again
    poll(1);
    routes.byTag.remove(UID);
    poll(60); // first suspect poll of a new count, however late
    assertEquals(List.of(), slurm.cancels);
    poll(61); // second poll, but only 1 s
    assertEquals(List.of(), slurm.cancels);
    poll(70);
    assertEquals(List.of(7L), slurm.cancels);
  }

  @Test
  void twoPollsAreNeededEvenWithoutAMinimumAge() throws Exception {
    SlurmJobTracker eager = new SlurmJobTracker(slurm, coalescer, signals, metrics, Duration.ZERO);
    eager.routes(routes);
    slurm.putPlaceholder(7, UID, "RUNNING", List.of("n1"));
    eager.poll(false, T0);
    assertEquals(List.of(), slurm.cancels, "one poll is never enough");
    eager.poll(false, T0);
    assertEquals(List.of(7L), slurm.cancels);
  }

  @Test
  void nothingIsAnOrphanWhileThePodCacheIsNotKnown() throws Exception {
    slurm.putPlaceholder(7, UID, "RUNNING", List.of("n1"));
    routes.known = false;
    for (int s = 0; s <= 60; s += 10) {
      poll(s);
    }
    assertEquals(List.of(), slurm.cancels);
    routes.known = true;
    poll(61);
    poll(65);
    assertEquals(List.of(), slurm.cancels, "the count starts when the cache is known");
    poll(71);
    assertEquals(List.of(7L), slurm.cancels);
  }

  @Test
  void endedJobsAreNeverCancelled() throws Exception {
    slurm.putPlaceholder(7, UID, "PREEMPTED", List.of("n1"));
    slurm.putPlaceholder(8, "uid-8", "COMPLETED", List.of("n1"));
    slurm.putPlaceholder(9, "uid-9", "STRANGE_NEW_STATE", List.of("n1")); // unknown: may hold
    // Being stopped: a cancel or preemption reached it; it ends after KillWait by itself.
    slurm.putPlaceholder(10, "uid-10", "COMPLETING", List.of("n1"));
    for (int s = 0; s <= 40; s += 10) {
      poll(s);
    }
    assertEquals(List.of(9L), slurm.cancels);
  }

  @Test
  void aJobWhoseWorkflowDoesNotRunIsCancelledToo() throws Exception {
    routes.byTag.put(UID, WF);
    signals.notRunning.add(WF);
    slurm.putPlaceholder(7, UID, "RUNNING", List.of("n1"));
    poll(0); // the signal is answered "not running"
    poll(1); // first suspect poll
    poll(5);
    assertEquals(List.of(), slurm.cancels);
    poll(11);
    assertEquals(List.of(7L), slurm.cancels);
    assertEquals(1.0, cancelledCount("owner-not-running"));
  }

  @Test
  void aRunningOwnerClearsTheSuspicion() throws Exception {
    routes.byTag.put(UID, WF);
    signals.notRunning.add(WF);
    slurm.putPlaceholder(7, UID, "PENDING", List.of());
    poll(0);
    poll(1);
    signals.notRunning.remove(WF);
    slurm.putPlaceholder(7, UID, "RUNNING", List.of("n1")); // the next signal is accepted
    poll(2);
    poll(30);
    poll(60);
    assertEquals(List.of(), slurm.cancels);
  }

  @Test
  void aFailedCancelIsRetried() throws Exception {
    slurm.putPlaceholder(7, UID, "RUNNING", List.of("n1"));
    slurm.cancelFails = true;
    poll(0);
    poll(10);
    assertEquals(List.of(), slurm.cancels);
    slurm.cancelFails = false;
    poll(12);
    assertEquals(List.of(7L), slurm.cancels);
  }
}
