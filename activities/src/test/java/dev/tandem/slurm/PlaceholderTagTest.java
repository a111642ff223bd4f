package dev.tandem.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.PlaceholderJob.Phase;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PlaceholderTagTest {
  private static final String UID = "0b5e6f3a-1111-4c2d-9e8f-000000000001";

  static SlurmJob job(String name, String comment, String state, Set<String> flags, int restarts) {
    return job(name, comment, state, flags, restarts, List.of());
  }

  static SlurmJob job(
      String name, String comment, String state, Set<String> flags, int restarts, List<String> n) {
    return new SlurmJob(
        7,
        name,
        comment,
        state,
        flags,
        "None",
        String.join(",", n),
        n,
        "low",
        null,
        null,
        "root",
        restarts,
        null,
        null,
        null,
        null,
        null,
        null,
        SlurmJob.Request.UNKNOWN);
  }

  @Test
  void aSubmissionCarriesTheTagTwiceAndIsNeverRequeued() {
    JobSubmission s = PlaceholderTag.submission(UID).cpusPerNode(2).build();
    assertEquals("tandem-pod-" + UID, s.name());
    assertEquals("tandem.dev/pod-uid=" + UID, s.comment());
    assertTrue(s.noRequeue());
    assertEquals(JobSubmission.POD_PLACEHOLDER_SCRIPT, s.script());
    assertTrue(s.nodeList().isEmpty(), "a placeholder is never pinned to nodes");
  }

  @Test
  void onlyAJobWhoseNameAndCommentAgreeIsAPlaceholder() {
    String name = PlaceholderTag.jobName(UID);
    String comment = PlaceholderTag.comment(UID);
    assertEquals(
        Optional.of(UID), PlaceholderTag.uidOf(job(name, comment, "RUNNING", Set.of(), 0)));
    // Whose job it is may follow the tag after a space (for sacct and squeue).
    assertEquals(
        Optional.of(UID),
        PlaceholderTag.uidOf(
            job(name, comment + " pod=default/trainer-0", "RUNNING", Set.of(), 0)));
    assertEquals(
        Optional.empty(),
        PlaceholderTag.uidOf(job("tandem-pod-other", comment, "RUNNING", Set.of(), 0)));
    assertEquals(Optional.empty(), PlaceholderTag.uidOf(job(name, null, "RUNNING", Set.of(), 0)));
    assertEquals(
        Optional.empty(), PlaceholderTag.uidOf(job(name, "schedule/x", "RUNNING", Set.of(), 0)));
    assertEquals(
        Optional.empty(),
        PlaceholderTag.uidOf(
            job("tandem-pod-a b", "tandem.dev/pod-uid=a b", "RUNNING", Set.of(), 0)));
  }

  @Test
  void aUidThatCannotBeATagIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> PlaceholderTag.jobName("a,b"));
    assertThrows(IllegalArgumentException.class, () -> PlaceholderTag.comment(""));
    assertThrows(IllegalArgumentException.class, () -> PlaceholderTag.checkUid(null));
    assertThrows(IllegalArgumentException.class, () -> PlaceholderTag.checkUid("x".repeat(161)));
    // The longest gang tag: <63-character namespace>.<63-character group>.<8>.
    String longest = "n".repeat(63) + "." + "g".repeat(63) + ".1a2b3c4d";
    assertEquals(longest, PlaceholderTag.checkUid(longest));
  }

  private static Phase phase(String state, Set<String> flags, int restarts, List<String> nodes) {
    SlurmJob j =
        job(
            PlaceholderTag.jobName(UID),
            PlaceholderTag.comment(UID),
            state,
            flags,
            restarts,
            nodes);
    return PlaceholderJob.of(j).orElseThrow().phase();
  }

  @Test
  void phases() {
    List<String> n1 = List.of("n1");
    assertEquals(Phase.WAITING, phase("PENDING", Set.of(), 0, List.of()));
    assertEquals(Phase.REQUEUED, phase("PENDING", Set.of(), 1, List.of()));
    assertEquals(Phase.REQUEUED, phase("PENDING", Set.of("REQUEUED"), 0, List.of()));
    assertEquals(Phase.REQUEUED, phase("REQUEUE_HOLD", Set.of(), 1, List.of()));
    assertEquals(Phase.RUNNING, phase("RUNNING", Set.of(), 0, n1));
    assertEquals(Phase.UNKNOWN, phase("RUNNING", Set.of(), 0, List.of()), "running nowhere");
    assertEquals(Phase.SUSPENDED, phase("SUSPENDED", Set.of(), 0, n1));
    assertEquals(Phase.ENDING, phase("COMPLETING", Set.of(), 0, n1));
    assertEquals(Phase.ENDING, phase("PREEMPTED", Set.of("COMPLETING"), 0, n1));
    assertEquals(Phase.PREEMPTED, phase("PREEMPTED", Set.of(), 0, n1));
    for (String s : List.of("CANCELLED", "TIMEOUT", "FAILED", "COMPLETED", "NODE_FAIL")) {
      assertEquals(Phase.ENDED, phase(s, Set.of(), 0, n1), s);
    }
    assertEquals(Phase.UNKNOWN, phase("RESIZING", Set.of(), 0, n1), "unknown is never ended");
  }

  @Test
  void overOnlyWhenEndedOrPreempted() {
    SlurmJob j =
        job(PlaceholderTag.jobName(UID), PlaceholderTag.comment(UID), "PREEMPTED", Set.of(), 0);
    assertTrue(PlaceholderJob.of(j).orElseThrow().over());
    SlurmJob u =
        job(PlaceholderTag.jobName(UID), PlaceholderTag.comment(UID), "STAGE_OUT", Set.of(), 0);
    assertEquals(false, PlaceholderJob.of(u).orElseThrow().over());
  }
}
