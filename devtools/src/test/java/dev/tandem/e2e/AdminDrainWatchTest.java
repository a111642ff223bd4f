package dev.tandem.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.SlurmNode;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class AdminDrainWatchTest {
  private final AdminDrainWatch watch = new AdminDrainWatch();

  private static Map<String, SlurmNode> node(String state, Set<String> flags, String reason) {
    return Map.of(
        "e2e-0",
        new SlurmNode(
            "e2e-0",
            state,
            flags,
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
            null));
  }

  /** Found by the full crash suite: a poll on its way when scontrol returned read Slurm before. */
  @Test
  void aPollThatStartedBeforeTheDrainIsNotJudged() {
    long pollStart = System.nanoTime();
    watch.drained("e2e-0", "disk");
    assertEquals(List.of(), watch.breaches(node("idle", Set.of(), null), pollStart));
  }

  @Test
  void aLaterPollWithoutTheDrainIsABreach() {
    watch.drained("e2e-0", "disk");
    List<String> b = watch.breaches(node("idle", Set.of(), null), System.nanoTime());
    assertEquals(1, b.size());
    assertTrue(b.get(0).contains("administrator drain on e2e-0 lifted or replaced"), b.get(0));
  }

  @Test
  void theDrainKeptAcrossAReplacementHolds() {
    watch.drained("e2e-0", "disk");
    // slurmd restarted for a new pod: Slurm marks the node DOWN for a while; flag and reason stay
    assertEquals(
        List.of(), watch.breaches(node("down", Set.of("DRAIN"), "disk"), System.nanoTime()));
    assertEquals(
        List.of(), watch.breaches(node("idle", Set.of("DRAIN"), "disk"), System.nanoTime()));
  }

  @Test
  void anotherReasonOrANodeGoneIsABreachAndAResumedNodeIsNot() {
    watch.drained("e2e-0", "disk");
    assertEquals(
        1,
        watch
            .breaches(node("idle", Set.of("DRAIN"), "tandem:update: x"), System.nanoTime())
            .size());
    assertTrue(
        watch.breaches(Map.of(), System.nanoTime()).get(0).contains("Slurm no longer lists it"));
    watch.lifted("e2e-0");
    assertEquals(List.of(), watch.breaches(Map.of(), System.nanoTime()));
  }
}
