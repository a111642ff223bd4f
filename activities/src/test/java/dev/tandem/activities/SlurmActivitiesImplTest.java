package dev.tandem.activities;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.doReturn;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmNode;
import dev.tandem.slurm.SlurmNotFoundException;
import dev.tandem.slurm.SlurmRejectedException;
import dev.tandem.slurm.SlurmUnauthorizedException;
import dev.tandem.slurm.SlurmUnavailableException;
import dev.tandem.slurm.SlurmUnsupportedException;
import dev.tandem.slurm.testing.MutableClock;
import dev.tandem.workflows.activities.SlurmActivities;
import dev.tandem.workflows.model.DrainCause;
import dev.tandem.workflows.model.DrainReason;
import dev.tandem.workflows.model.NodeJobs;
import dev.tandem.workflows.model.SlurmNodeView;
import io.temporal.failure.ApplicationFailure;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SlurmActivitiesImplTest {
  static final Instant NOW = Instant.parse("2025-01-01T00:00:00Z");
  static final String OURS = DrainReason.format(DrainCause.SCALE_DOWN, "replicas 4 -> 3");
  static final String OTHER_OURS = DrainReason.format(DrainCause.UPDATE, "revision abc");
  static final String ADMIN = "bad DIMM, ticket 4711";

  SlurmClient slurm;
  SlurmActivitiesImpl act;

  @BeforeEach
  void setUp() {
    slurm = mock(SlurmClient.class);
    act = new SlurmActivitiesImpl(slurm, new MutableClock(NOW));
  }

  static SlurmNode node(String state, Set<String> flags, String reason) {
    return new SlurmNode(
        "gpu-a-0",
        state,
        flags,
        reason,
        reason == null ? null : "root",
        null,
        8,
        0,
        1000,
        "gpu:8",
        "",
        List.of("gpu"),
        List.of("h100"),
        "10.0.0.1",
        "gpu-a-0",
        NOW.minusSeconds(60),
        null,
        "22.05.8");
  }

  static SlurmJob job(long id, String state, String nodes, List<String> nodeList) {
    return new SlurmJob(
        id,
        "j" + id,
        null,
        state,
        Set.of(),
        "None",
        nodes,
        nodeList,
        "gpu",
        null,
        null,
        "alice",
        0,
        null,
        null,
        null,
        null,
        null,
        null,
        SlurmJob.Request.UNKNOWN);
  }

  private static void assertFailure(String type, boolean nonRetryable, Runnable r) {
    ApplicationFailure f = assertThrows(ApplicationFailure.class, r::run);
    assertEquals(type, f.getType(), f.getMessage());
    assertEquals(nonRetryable, f.isNonRetryable(), f.getMessage());
  }

  @Test
  void getNodeOfAnUnknownNodeIsKnownFalse() {
    when(slurm.getNode("gpu-a-0")).thenThrow(new SlurmNotFoundException("no node gpu-a-0"));
    SlurmNodeView v = act.getNode("gpu-a-0");
    assertFalse(v.known());
    assertEquals(NOW, v.observedAt());
  }

  @Test
  void getNodeCarriesStateFlagsAndReason() {
    when(slurm.getNode("gpu-a-0")).thenReturn(node("idle", Set.of("DRAIN"), ADMIN));
    SlurmNodeView v = act.getNode("gpu-a-0");
    assertTrue(v.known());
    assertEquals("idle+DRAIN", v.summary());
    assertTrue(v.adminReason());
    assertEquals(NOW.minusSeconds(60), v.slurmdStartTime());
  }

  @Test
  void drainSetsTandemsReason() {
    when(slurm.getNode("gpu-a-0"))
        .thenReturn(node("allocated", Set.of(), null), node("allocated", Set.of("DRAIN"), OURS));
    SlurmNodeView v = act.drain("gpu-a-0", OURS);
    verify(slurm).drain("gpu-a-0", OURS);
    assertEquals(OURS, v.reason());
  }

  @Test
  void drainKeepsAnAdministratorsReason() {
    when(slurm.getNode("gpu-a-0")).thenReturn(node("idle", Set.of("DRAIN"), ADMIN));
    assertEquals(ADMIN, act.drain("gpu-a-0", OURS).reason());
    when(slurm.getNode("gpu-a-0")).thenReturn(node("down", Set.of(), ADMIN));
    assertEquals(ADMIN, act.drain("gpu-a-0", OURS).reason());
    verify(slurm, never()).drain(anyString(), anyString());
  }

  @Test
  void drainWithTheSameReasonIsANoOpAndAnotherTandemReasonIsReplaced() {
    when(slurm.getNode("gpu-a-0")).thenReturn(node("idle", Set.of("DRAIN"), OURS));
    act.drain("gpu-a-0", OURS);
    verify(slurm, never()).drain(anyString(), anyString());

    when(slurm.getNode("gpu-a-0")).thenReturn(node("idle", Set.of("DRAIN"), OTHER_OURS));
    act.drain("gpu-a-0", OURS);
    verify(slurm).drain("gpu-a-0", OURS);
  }

  @Test
  void drainRefusesAReasonThatIsNotTandems() {
    assertFailure(SlurmActivities.REJECTED, true, () -> act.drain("gpu-a-0", "because"));
    verify(slurm, never()).drain(anyString(), anyString());
  }

  @Test
  void drainOfAnUnknownNodeOrARefusalIsRejectedWithSlurmsMessage() {
    when(slurm.getNode("gpu-a-0")).thenThrow(new SlurmNotFoundException("no node gpu-a-0"));
    assertFailure(SlurmActivities.REJECTED, true, () -> act.drain("gpu-a-0", OURS));

    when(slurm.getNode("gpu-a-1")).thenReturn(node("idle", Set.of(), null));
    doThrow(new SlurmRejectedException(2018, "Invalid node name specified", "drain gpu-a-1"))
        .when(slurm)
        .drain("gpu-a-1", OURS);
    ApplicationFailure f = assertThrows(ApplicationFailure.class, () -> act.drain("gpu-a-1", OURS));
    assertEquals(SlurmActivities.REJECTED, f.getType());
    assertTrue(f.getOriginalMessage().contains("Invalid node name specified"), f.getMessage());
  }

  @Test
  void unavailableOrUnauthorizedSlurmIsRetryable() {
    when(slurm.getNode("gpu-a-0")).thenThrow(new SlurmUnavailableException("connection refused"));
    assertFailure(SlurmFailures.UNAVAILABLE, false, () -> act.getNode("gpu-a-0"));
    assertFailure(SlurmFailures.UNAVAILABLE, false, () -> act.drain("gpu-a-0", OURS));
    when(slurm.getNode("gpu-a-1")).thenThrow(new SlurmUnauthorizedException("token expired"));
    assertFailure(SlurmFailures.UNAUTHORIZED, false, () -> act.undrain("gpu-a-1"));
  }

  @Test
  void undrainOnlyLiftsTandemsDrain() {
    when(slurm.getNode("gpu-a-0")).thenReturn(node("idle", Set.of("DRAIN"), ADMIN));
    act.undrain("gpu-a-0");
    when(slurm.getNode("gpu-a-0")).thenReturn(node("idle", Set.of(), null));
    act.undrain("gpu-a-0");
    verify(slurm, never()).undrain(anyString());
    verify(slurm, never()).resume(anyString());

    when(slurm.getNode("gpu-a-0"))
        .thenReturn(node("idle", Set.of("DRAIN"), OURS), node("idle", Set.of(), null));
    assertFalse(act.undrain("gpu-a-0").drainFlag());
    verify(slurm).undrain("gpu-a-0");
  }

  /** Slurm 22.05 re-pings a node after UNDRAIN; the answer is the node once it has answered. */
  @Test
  void undrainReturnsTheNodeAfterSlurmsPing() {
    when(slurm.getNode("gpu-a-0"))
        .thenReturn(
            node("idle", Set.of("DRAIN"), OURS),
            node("idle", Set.of("NOT_RESPONDING"), null),
            node("idle", Set.of("NOT_RESPONDING"), null),
            node("idle", Set.of(), null));
    SlurmNodeView v = act.undrain("gpu-a-0");
    assertTrue(v.responding(), v.toString());
    verify(slurm, times(4)).getNode("gpu-a-0");
  }

  @Test
  void undrainResumesANodeTandemForcedDownOnceSlurmdAnswers() {
    when(slurm.getNode("gpu-a-0"))
        .thenReturn(node("down", Set.of("DRAIN", "NOT_RESPONDING"), OURS));
    act.undrain("gpu-a-0");
    verify(slurm).undrain("gpu-a-0");
    verify(slurm, never()).resume(anyString());

    when(slurm.getNode("gpu-a-0"))
        .thenReturn(node("down", Set.of(), OURS), node("idle", Set.of(), null));
    act.undrain("gpu-a-0");
    verify(slurm).resume("gpu-a-0");
  }

  @Test
  void jobsOnNodeComesFromTheJobListNotTheNodeCounters() {
    when(slurm.listNodes(any())).thenReturn(new SlurmClient.Listing<>(true, List.of(), NOW));
    when(slurm.listJobs(any()))
        .thenReturn(
            new SlurmClient.Listing<>(
                true,
                List.of(
                    job(7, "RUNNING", "gpu-a-[0-1]", List.of()),
                    job(3, "COMPLETING", "gpu-a-0", List.of("gpu-a-0")),
                    job(5, "PENDING", "", List.of()),
                    job(9, "COMPLETED", "gpu-a-0", List.of("gpu-a-0")),
                    job(11, "RUNNING", "gpu-a-10", List.of("gpu-a-10"))),
                NOW));
    NodeJobs jobs = act.jobsOnNode("gpu-a-0");
    assertEquals(List.of(3L, 7L), jobs.jobIds());
    assertTrue(jobs.busy());
    assertEquals(List.of(11L), act.jobsOnNode("gpu-a-10").jobIds());
    assertFalse(act.jobsOnNode("gpu-a-2").busy());
  }

  /** Fail closed: never "not busy" when the job list could not be read. */
  @Test
  void jobsOnNodeFailsWhenSlurmCannotBeRead() {
    when(slurm.listNodes(any())).thenReturn(new SlurmClient.Listing<>(true, List.of(), NOW));
    when(slurm.listJobs(any())).thenThrow(new SlurmUnavailableException("timeout"));
    assertFailure(SlurmFailures.UNAVAILABLE, false, () -> act.jobsOnNode("gpu-a-0"));
    doReturn(SlurmClient.Listing.unchanged(NOW)).when(slurm).listJobs(any());
    ApplicationFailure f =
        assertThrows(ApplicationFailure.class, () -> act.jobsOnNode("gpu-a-0"), "not \"no jobs\"");
    assertFalse(f.isNonRetryable());
  }

  @Test
  void forceDownMarksDownOnce() {
    String reason = DrainReason.format(DrainCause.SCALE_DOWN, "drain timeout 30m expired");
    when(slurm.getNode("gpu-a-0"))
        .thenReturn(
            node("allocated", Set.of("DRAIN"), OURS), node("down", Set.of("DRAIN"), reason));
    assertTrue(act.forceDown("gpu-a-0", reason).down());
    verify(slurm).down("gpu-a-0", reason);

    when(slurm.getNode("gpu-a-0")).thenReturn(node("down", Set.of("DRAIN"), reason));
    act.forceDown("gpu-a-0", reason);
    verify(slurm).down(any(), any()); // still once
  }

  @Test
  void removeNodeSaysWhetherSlurmCould() {
    assertTrue(act.removeNode("gpu-a-0"));
    doThrow(new SlurmUnsupportedException("declared in slurm.conf"))
        .when(slurm)
        .deleteNode("gpu-a-1");
    assertFalse(act.removeNode("gpu-a-1"));
    doThrow(new SlurmNotFoundException("gone")).when(slurm).deleteNode("gpu-a-2");
    assertTrue(act.removeNode("gpu-a-2"), "already gone is what removal wanted");
    doThrow(new SlurmUnavailableException("down")).when(slurm).deleteNode("gpu-a-3");
    assertFailure(SlurmFailures.UNAVAILABLE, false, () -> act.removeNode("gpu-a-3"));
  }
}
