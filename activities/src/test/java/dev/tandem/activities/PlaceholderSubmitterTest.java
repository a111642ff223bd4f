package dev.tandem.activities;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import dev.tandem.slurm.JobSubmission;
import dev.tandem.slurm.PlaceholderJob.Phase;
import dev.tandem.slurm.PlaceholderTag;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmNotFoundException;
import dev.tandem.slurm.SlurmRejectedException;
import dev.tandem.slurm.SlurmUnavailableException;
import dev.tandem.workflows.activities.SlurmActivities;
import dev.tandem.workflows.model.SlurmJobView;
import dev.tandem.workflows.schedule.Exclusivity;
import dev.tandem.workflows.schedule.PlaceholderJob;
import io.temporal.failure.ApplicationFailure;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;

/** The Slurm side of SchedulingActivitiesImpl with a mocked client: decisions and mapping. */
class PlaceholderSubmitterTest {
  private static final String UID = "0b6c5a1e-1111-4a2b-9c3d-2e4f5a6b7c8d";
  private static final Instant NOW = Instant.parse("2026-01-02T03:04:05Z");

  private final SlurmClient slurm = mock(SlurmClient.class);
  private final PlaceholderSubmitter submitter =
      new PlaceholderSubmitter(
          slurm,
          Clock.fixed(NOW, ZoneOffset.UTC),
          // Every lookup lists (the index's sharing is PlaceholderIndexTest's).
          new PlaceholderIndex(
              slurm,
              Clock.fixed(NOW, ZoneOffset.UTC),
              java.time.Duration.ZERO,
              java.time.Duration.ZERO));

  static PlaceholderJob placeholder(String uid, String partition) {
    return new PlaceholderJob(
        PlaceholderJob.nameFor(uid),
        PlaceholderJob.commentFor(uid, "pod=default/it"),
        uid,
        2,
        3,
        1536,
        "gpu:a100:2",
        partition,
        "normal",
        "research",
        90L,
        "maint",
        Exclusivity.USER,
        10,
        false);
  }

  static SlurmJob tagged(long id, String uid, String state, int restarts) {
    return tagged(id, uid, state, "None", restarts);
  }

  static SlurmJob tagged(long id, String uid, String state, String reason, int restarts) {
    return new SlurmJob(
        id,
        "tandem-pod-" + uid,
        "tandem.dev/pod-uid=" + uid,
        state,
        Set.of(),
        reason,
        "RUNNING".equals(state) ? "c1" : "",
        "RUNNING".equals(state) ? List.of("c1") : List.of(),
        "low",
        null,
        null,
        null,
        restarts,
        null,
        null,
        null,
        null,
        null,
        null,
        SlurmJob.Request.UNKNOWN);
  }

  private void listing(SlurmJob... jobs) {
    when(slurm.listPlaceholderJobs(any()))
        .thenReturn(
            new SlurmClient.Listing<>(
                true,
                java.util.Arrays.stream(jobs)
                    .map(dev.tandem.slurm.PlaceholderJob::of)
                    .map(java.util.Optional::orElseThrow)
                    .toList(),
                java.time.Instant.EPOCH));
  }

  @Test
  void aFirstSubmitListsNothingAndARepeatOnThisWorkerTakesItsOwnJob() {
    when(slurm.submit(any())).thenReturn(77L);
    when(slurm.getJob(77L)).thenReturn(tagged(77L, UID, "PENDING", 0));
    assertEquals(77L, submitter.submitFirst(placeholder(UID, "low"), 1).id());
    verify(slurm, never()).listPlaceholderJobs(any());
    // The workflow task failed after the submit and was retried on this worker: same job.
    assertEquals(77L, submitter.submitFirst(placeholder(UID, "low"), 1).id());
    verify(slurm, never()).listPlaceholderJobs(any());
    verify(slurm, org.mockito.Mockito.times(1)).submit(any());
  }

  @Test
  void aRetriedFirstSubmitListsAndFindsTheJobItsLostAnswerMade() {
    listing(tagged(78L, UID, "PENDING", 0));
    SlurmJobView v = submitter.submitFirst(placeholder(UID, "low"), 2);
    assertEquals(78L, v.id());
    verify(slurm).listPlaceholderJobs(any());
    verify(slurm, never()).submit(any());
  }

  @Test
  void submitsEveryFieldTaggedWithoutNodeListOrRequeue() {
    listing();
    when(slurm.submit(any())).thenReturn(77L);
    when(slurm.getJob(77L)).thenReturn(tagged(77L, UID, "PENDING", 0));
    SlurmJobView v = submitter.submit(placeholder(UID, "low"));
    assertEquals(77L, v.id());
    assertEquals("PENDING", v.state());
    assertEquals(NOW, v.observedAt());
    ArgumentCaptor<JobSubmission> s = ArgumentCaptor.forClass(JobSubmission.class);
    verify(slurm).submit(s.capture());
    JobSubmission j = s.getValue();
    assertEquals("tandem-pod-" + UID, j.name());
    assertEquals("tandem.dev/pod-uid=" + UID + " pod=default/it", j.comment(), "tag, then whose");
    assertEquals(2, j.nodeCount());
    assertEquals(3, j.cpusPerNode());
    assertEquals(1536L, j.memoryMbPerNode());
    assertEquals("gpu:a100:2", j.gresPerNode());
    assertEquals("low", j.partition());
    assertEquals("normal", j.qos());
    assertEquals("research", j.account());
    assertEquals(90L, j.timeLimitMinutes());
    assertEquals("maint", j.reservation());
    assertEquals(JobSubmission.Exclusivity.USER, j.exclusivity());
    assertEquals(10, j.nice());
    assertTrue(j.noRequeue());
    assertTrue(j.nodeList().isEmpty());
    assertEquals(JobSubmission.POD_PLACEHOLDER_SCRIPT, j.script());
  }

  @Test
  void aLiveTaggedJobIsReturnedInsteadOfASecondOne() {
    listing(tagged(9L, UID, "CANCELLED", 0), tagged(12L, UID, "RUNNING", 0));
    SlurmJobView v = submitter.submit(placeholder(UID, "low"));
    assertEquals(12L, v.id());
    assertEquals(List.of("c1"), v.nodes());
    assertEquals("tandem-pod-" + UID, v.name());
    verify(slurm, never()).submit(any());
  }

  @Test
  void onlyEndedTaggedJobsGiveTheNewestEndedOneAndNoSubmit() {
    listing(tagged(9L, UID, "CANCELLED", 0), tagged(11L, UID, "PREEMPTED", 0));
    SlurmJobView v = submitter.submit(placeholder(UID, "low"));
    assertEquals(11L, v.id());
    assertEquals("PREEMPTED", v.state());
    verify(slurm, never()).submit(any());
  }

  @Test
  void theFailedRecordOfARefusedSubmitFoundByARetryIsTheSameRefusal() {
    // Slurm 22.05 keeps a submit it refused as FAILED, BadConstraints, never on a node.
    SlurmJob failed = tagged(14L, UID, "FAILED", "BadConstraints", 0);
    listing(failed);
    ApplicationFailure refused =
        assertThrows(ApplicationFailure.class, () -> submitter.submit(placeholder(UID, "low")));
    assertEquals(SlurmActivities.REJECTED, refused.getType());
    assertTrue(refused.isNonRetryable());
    assertTrue(
        refused
            .getOriginalMessage()
            .startsWith(
                "Slurm ended job 14 at once (FAILED, BadConstraints): it cannot give what was"
                    + " asked, asking for 2 nodes with 3 CPUs"),
        refused.getOriginalMessage());
    verify(slurm, never()).submit(any());
  }

  @Test
  void anUnknownStateCountsAsLive() {
    listing(tagged(13L, UID, "SOME_NEW_STATE", 0));
    assertEquals(
        Phase.UNKNOWN,
        dev.tandem.slurm.PlaceholderJob.of(tagged(13L, UID, "SOME_NEW_STATE", 0))
            .orElseThrow()
            .phase());
    assertEquals(13L, submitter.submit(placeholder(UID, "low")).id());
    verify(slurm, never()).submit(any());
  }

  @Test
  void slurmRefusalIsRejectedForGoodAndAnOutageIsRetryable() {
    listing();
    when(slurm.submit(any()))
        .thenThrow(new SlurmRejectedException(2, "Invalid partition name specified", "submit"));
    ApplicationFailure refused =
        assertThrows(ApplicationFailure.class, () -> submitter.submit(placeholder(UID, "nope")));
    assertEquals(SlurmActivities.REJECTED, refused.getType());
    assertTrue(refused.isNonRetryable());
    assertTrue(
        refused.getOriginalMessage().contains("Invalid partition name"), refused.getMessage());

    when(slurm.listPlaceholderJobs(any()))
        .thenThrow(new SlurmUnavailableException("connection refused"));
    ApplicationFailure outage =
        assertThrows(ApplicationFailure.class, () -> submitter.submit(placeholder(UID, "low")));
    assertFalse(outage.isNonRetryable());
    assertEquals(SlurmFailures.UNAVAILABLE, outage.getType());
  }

  @Test
  void aRefusedSubmitSaysWhatWasAskedInSlurmsWordsAndWhatToDo() {
    listing();
    // Slurm 22.05's slurmrestd repeats the number in front of its words.
    when(slurm.submit(any()))
        .thenThrow(
            new SlurmRejectedException(
                2014, "[2014] Requested node configuration is not available", "submit job 'x'"));
    ApplicationFailure refused =
        assertThrows(ApplicationFailure.class, () -> submitter.submit(placeholder(UID, "gpu")));
    assertEquals(SlurmActivities.REJECTED, refused.getType());
    assertTrue(refused.isNonRetryable());
    assertEquals(
        "Requested node configuration is not available (Slurm error 2014), asking for 2 nodes"
            + " with 3 CPUs and 1536 MiB, GRES gpu:a100:2 each, partition gpu, QOS normal,"
            + " account research, reservation maint, time limit 90 min, exclusive=user; change"
            + " the members' requests or tandem.dev/* annotations to what Slurm can give, then"
            + " create the gang's pods again",
        refused.getOriginalMessage());
    // Slurm's words are in the message: no cause, which the worker would append to it.
    assertEquals(null, refused.getCause());
    // One pod's placeholder (one node) is told of its pod.
    PlaceholderJob one =
        new PlaceholderJob(
            PlaceholderJob.nameFor(UID),
            PlaceholderJob.commentFor(UID, "pod=default/it"),
            UID,
            1,
            500,
            256,
            null,
            "tandem",
            null,
            null,
            null,
            null,
            Exclusivity.NONE,
            null,
            false);
    String single =
        assertThrows(ApplicationFailure.class, () -> submitter.submit(one)).getOriginalMessage();
    assertTrue(
        single.endsWith(
            "asking for 1 node with 500 CPUs and 256 MiB, partition tandem; change the pod's"
                + " requests or tandem.dev/* annotations to what Slurm can give, then create the"
                + " pod again"),
        single);
  }

  @Test
  void aRefusalAskedForAgainOnThisWorkerIsTheSameWordsWithoutAskingSlurm() {
    when(slurm.submit(any()))
        .thenThrow(new SlurmRejectedException(2066, "Invalid qos specification", "submit"));
    ApplicationFailure refused =
        assertThrows(
            ApplicationFailure.class, () -> submitter.submitFirst(placeholder(UID, "gpu"), 1));
    // Its workflow task ran again (a signal landed on the one that took the refusal), and by then
    // the watcher had listed Slurm's FAILED record of the refused job: still the first words, so
    // the condition and the event that the two runs write agree.
    listing(tagged(15L, UID, "FAILED", "BadConstraints", 0));
    for (int attempt : new int[] {1, 2}) {
      ApplicationFailure again =
          assertThrows(
              ApplicationFailure.class,
              () -> submitter.submitFirst(placeholder(UID, "gpu"), attempt));
      assertEquals(refused.getOriginalMessage(), again.getOriginalMessage());
      assertEquals(SlurmActivities.REJECTED, again.getType());
      assertTrue(again.isNonRetryable());
    }
    verify(slurm, org.mockito.Mockito.times(1)).submit(any());
    verify(slurm, never()).listPlaceholderJobs(any());
  }

  @Test
  void aSubmitIsOneRequestAndAnswersTheJobQueued() {
    listing();
    when(slurm.submit(any())).thenReturn(78L);
    SlurmJobView v = submitter.submit(placeholder(UID, "low"));
    assertEquals(78L, v.id());
    assertEquals("PENDING", v.state());
    assertEquals(PlaceholderTag.jobName(UID), v.name());
    verify(slurm, never()).getJob(org.mockito.ArgumentMatchers.anyLong());
    // The worker's index knows the job at once: a repeat on this worker takes it.
    assertEquals(78L, submitter.submitFirst(placeholder(UID, "low"), 1).id());
    verify(slurm, org.mockito.Mockito.times(1)).submit(any());
  }

  @Test
  void aNameOrCommentWithoutTheTagIsRejectedBeforeAskingSlurm() {
    PlaceholderJob p = placeholder(UID, "low");
    PlaceholderJob renamed =
        new PlaceholderJob(
            "my-job",
            p.comment(),
            p.podUid(),
            1,
            1,
            100,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            false);
    ApplicationFailure f = assertThrows(ApplicationFailure.class, () -> submitter.submit(renamed));
    assertTrue(f.isNonRetryable());
    assertThrows(ApplicationFailure.class, () -> submitter.find("has space"));
    verify(slurm, never()).listPlaceholderJobs(any());
  }

  @Test
  void cancelCancelsThenReadsAndGoneIsGone() {
    when(slurm.getJob(5L)).thenReturn(tagged(5L, UID, "CANCELLED", 0));
    assertEquals("CANCELLED", submitter.cancel(5L, "pod deleted").state());
    verify(slurm).cancel(5L, null);
    verify(slurm, org.mockito.Mockito.times(1)).getJob(5L);

    // Slurm answers a cancel of an ended job as done: the job is read as it ended.
    when(slurm.getJob(6L)).thenReturn(tagged(6L, UID, "PREEMPTED", 0));
    assertEquals("PREEMPTED", submitter.cancel(6L, "again").state());

    when(slurm.getJob(7L)).thenThrow(new SlurmNotFoundException("job 7"));
    SlurmJobView gone = submitter.cancel(7L, "x");
    assertEquals(SlurmJobView.GONE, gone.state());
    assertEquals(7L, gone.id());
    assertNull(gone.name());
  }

  @Test
  void releaseSignalsThenCancelsAndARefusedSignalStillCancels() {
    when(slurm.getJob(5L)).thenReturn(tagged(5L, UID, "COMPLETED", 0));
    assertEquals("COMPLETED", submitter.release(5L, "pod succeeded").state());
    org.mockito.InOrder order = org.mockito.Mockito.inOrder(slurm);
    order.verify(slurm).cancel(5L, JobSubmission.RELEASE_SIGNAL);
    order.verify(slurm).cancel(5L, null);

    // A pending job: Slurm refuses the signal (2020, "Job can not be altered now"); the cancel ends
    // it.
    org.mockito.Mockito.doThrow(new SlurmRejectedException(2020, "Job can not be altered now", "x"))
        .when(slurm)
        .cancel(6L, JobSubmission.RELEASE_SIGNAL);
    when(slurm.getJob(6L)).thenReturn(tagged(6L, UID, "CANCELLED", 0));
    assertEquals("CANCELLED", submitter.release(6L, "pod deleted").state());
    verify(slurm).cancel(6L, null);

    // Purged already: gone, and nothing else is asked.
    org.mockito.Mockito.doThrow(new SlurmNotFoundException("job 7"))
        .when(slurm)
        .cancel(7L, JobSubmission.RELEASE_SIGNAL);
    assertEquals(SlurmJobView.GONE, submitter.release(7L, "x").state());
    verify(slurm, never()).cancel(7L, null);
  }
}
