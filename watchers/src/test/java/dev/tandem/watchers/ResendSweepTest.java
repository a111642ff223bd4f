package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The watchers' resends of unchanged views are a sweep whose cost per pass is capped. */
class ResendSweepTest {
  private static List<String> names(int n) {
    return IntStream.range(0, n).mapToObj(i -> String.format("node-%05d", i)).toList();
  }

  /** How often each name was resent over {@code passes} passes, checking each pass's size. */
  private static Map<String, Integer> run(
      ResendSweep sweep, List<String> names, int passes, int max) {
    Map<String, Integer> counts = new HashMap<>();
    for (int p = 0; p < passes; p++) {
      Set<String> out = sweep.next(names.stream());
      assertTrue(out.size() <= max, "pass " + p + " resent " + out.size());
      out.forEach(n -> counts.merge(n, 1, Integer::sum));
    }
    return counts;
  }

  @Test
  void aSmallFleetGoesAgainOnceInEveryPassesSpreadOut() {
    List<String> names = names(10);
    Map<String, Integer> counts = run(new ResendSweep(30, 20), names, 30, 1);
    assertEquals(10, counts.size(), "every name once in 30 passes: " + counts);
    assertTrue(counts.values().stream().allMatch(c -> c == 1), counts.toString());
  }

  @Test
  void oneNameGoesOnTheThirtiethPassOnly() {
    ResendSweep sweep = new ResendSweep(30, 20);
    for (int p = 1; p < 30; p++) {
      assertEquals(Set.of(), sweep.next(names(1).stream()), "pass " + p);
    }
    assertEquals(Set.of("node-00000"), sweep.next(names(1).stream()));
  }

  @Test
  void aLargeFleetCostsTheCapAPassAndIsCoveredInNamesOverCapPasses() {
    List<String> names = names(5000);
    ResendSweep sweep = new ResendSweep(30, 20);
    Map<String, Integer> counts = run(sweep, names, 250, 20);
    assertEquals(5000, counts.size(), "5,000 names / 20 a pass: all in 250 passes");
    assertTrue(counts.values().stream().allMatch(c -> c == 1), "none twice");
    assertEquals(20, sweep.next(names.stream()).size(), "the cap, whatever the size");
  }

  @Test
  void namesThatComeAndGoDoNotStopTheSweep() {
    ResendSweep sweep = new ResendSweep(1, 2);
    assertEquals(Set.of("a", "b"), sweep.next(List.of("a", "b", "c", "d").stream()));
    // "b", the last one taken, is gone: the sweep goes on after it.
    assertEquals(Set.of("c", "d"), sweep.next(List.of("a", "c", "d").stream()));
    assertEquals(Set.of("a", "c"), sweep.next(List.of("a", "c", "d").stream()));
  }
}
