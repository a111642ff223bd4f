package dev.tandem.e2e;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.SlurmNode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The crash suite's rule for "out of service" (what counts against maxUnavailable). */
class OutOfServiceTest {
  private final OutOfService rule = new OutOfService(Duration.ofSeconds(5));
  private final Instant t0 = Instant.parse("2026-01-01T00:00:00Z");

  private static SlurmNode node(String state, String reason, String... flags) {
    return new SlurmNode(
        "e2e-0",
        state,
        Set.of(flags),
        reason,
        null,
        null,
        4,
        0,
        4000,
        "",
        "",
        List.of(),
        List.of(),
        "127.0.0.1",
        "vm",
        null,
        null,
        null);
  }

  private Instant at(double seconds) {
    return t0.plusMillis((long) (seconds * 1000));
  }

  @Test
  void servingNodeIsIn() {
    assertFalse(rule.out("e2e-0", true, node("idle", null), at(0)));
    assertFalse(rule.out("e2e-0", true, node("mixed", null), at(1)));
  }

  @Test
  void anAdministratorsDrainDownFutureAbsentOrAPodNotRunningIsOut() {
    assertTrue(rule.out("e2e-0", true, node("idle", "disk", "DRAIN"), at(0)));
    assertTrue(rule.out("e2e-0", true, node("down", "Not responding"), at(0)));
    assertTrue(rule.out("e2e-0", true, node("future", null), at(0)));
    assertTrue(rule.out("e2e-0", true, null, at(0)));
    assertTrue(rule.out("e2e-0", false, node("idle", null), at(0)));
  }

  @Test
  void notRespondingRightAfterAnUndrainIsSlurmsPingNotAnOutage() {
    assertTrue(rule.out("e2e-0", true, node("idle", "tandem:update: x", "DRAIN"), at(0)));
    assertFalse(rule.out("e2e-0", true, node("idle", null, "NOT_RESPONDING"), at(0.25)));
    assertFalse(rule.out("e2e-0", true, node("idle", null, "NOT_RESPONDING"), at(1.5)));
    assertFalse(rule.out("e2e-0", true, node("idle", null), at(1.75)));
  }

  @Test
  void aSlurmdSilentLongerThanTheGraceIsOut() {
    assertTrue(rule.out("e2e-0", true, node("idle", "disk", "DRAIN"), at(0)));
    assertFalse(rule.out("e2e-0", true, node("idle", null, "NOT_RESPONDING"), at(4)));
    assertTrue(rule.out("e2e-0", true, node("idle", null, "NOT_RESPONDING"), at(6)));
  }

  @Test
  void notRespondingOutOfTheBlueIsOut() {
    assertFalse(rule.out("e2e-0", true, node("idle", null), at(0)));
    assertTrue(rule.out("e2e-0", true, node("idle", null, "NOT_RESPONDING"), at(1)));
  }
}
