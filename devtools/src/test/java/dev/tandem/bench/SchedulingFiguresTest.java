package dev.tandem.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.bench.SchedulingFigures.Run;
import dev.tandem.bench.SchedulingFigures.Verdict;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class SchedulingFiguresTest {
  private static final long S = 1_000_000_000L;

  @Test
  void throughputIsDoneItemsOverFirstSendToLastFinish() {
    Run r = new Run(4, 10 * S, 12 * S, List.of(1.0, 2.0, 3.0, 4.0));
    assertEquals(2.0, r.perSecond(), 1e-9);
  }

  @Test
  void throughputPassesAtEightyPercentOfRawAndMissesBelow() {
    Run raw = new Run(10, 0, 1 * S, List.of(1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0));
    Run atShare = new Run(8, 0, 1 * S, List.of(1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0));
    Run below = new Run(7, 0, 1 * S, List.of(1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0));
    assertEquals(Verdict.PASS, SchedulingFigures.throughput(atShare, raw));
    assertEquals(Verdict.MISS, SchedulingFigures.throughput(below, raw));
  }

  @Test
  void aRunThatLostItemsHasNoThroughputVerdict() {
    Run raw = new Run(2, 0, 1 * S, List.of(1.0, 1.0));
    Run lost = new Run(3, 0, 1 * S, List.of(1.0, 1.0));
    assertEquals(Verdict.NO_DATA, SchedulingFigures.throughput(lost, raw));
    assertEquals(Verdict.NO_DATA, SchedulingFigures.throughput(raw, lost));
    Run none = new Run(3, 0, 0, List.of());
    assertEquals(Double.NaN, none.perSecond());
    assertEquals(Verdict.NO_DATA, SchedulingFigures.bindLatency(none, raw));
  }

  @Test
  void bindP50MayExceedRawP50ByAQuarterSecond() {
    Run raw = new Run(3, 0, S, List.of(100.0, 200.0, 900.0));
    assertEquals(
        Verdict.PASS,
        SchedulingFigures.bindLatency(new Run(3, 0, S, List.of(50.0, 450.0, 5000.0)), raw));
    assertEquals(
        Verdict.MISS,
        SchedulingFigures.bindLatency(new Run(3, 0, S, List.of(50.0, 451.0, 5000.0)), raw));
  }

  @Test
  void aFloorThatMissesATargetShowsItOutOfReachAndOneThatMeetsItWithinReach() {
    Run raw = new Run(10, 0, S, List.of(1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0));
    Run pods = new Run(5, 0, S, List.of(900.0, 900.0, 900.0, 900.0, 900.0));
    Run slowFloor = new Run(6, 0, S, List.of(300.0, 300.0, 300.0, 300.0, 300.0, 300.0));
    String out = SchedulingFigures.floorLine(pods, raw, slowFloor, Offer.BURST);
    assertTrue(out.contains("floor/raw = 0.60, target 0.8 OUT OF REACH here"), out);
    assertTrue(out.contains("p50 floor - raw = +299.0 ms, target +250 ms OUT OF REACH here"), out);
    assertTrue(out.contains("pods/floor = 0.83, p50 pods - floor = +600.0 ms"), out);
    Run fastFloor = new Run(9, 0, S, List.of(2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0));
    out = SchedulingFigures.floorLine(pods, raw, fastFloor, Offer.BURST);
    assertTrue(out.contains("floor/raw = 0.90, target 0.8 within reach here"), out);
    assertTrue(out.contains("+1.0 ms, target +250 ms within reach here"), out);
    Run lost = new Run(9, 0, S, List.of(2.0));
    assertTrue(
        SchedulingFigures.floorLine(pods, raw, lost, Offer.BURST).contains("(floor: no data)"));
  }

  @Test
  void percentilesAreNearestRankOfUnsortedSamples() {
    List<Double> s = List.of(5.0, 1.0, 4.0, 2.0, 3.0);
    assertEquals(3.0, SchedulingFigures.percentile(s, 50));
    assertEquals(5.0, SchedulingFigures.percentile(s, 99));
    assertEquals(Double.NaN, SchedulingFigures.percentile(List.of(), 50));
  }

  @Test
  void preemptionTargetIsPollIntervalPlusOneSecond() {
    Duration poll = Duration.ofSeconds(2);
    assertEquals(3000, SchedulingFigures.preemptionTargetMs(poll));
    assertEquals(Verdict.PASS, SchedulingFigures.preemption(List.of(100.0, 3000.0), poll));
    assertEquals(Verdict.MISS, SchedulingFigures.preemption(List.of(100.0, 3001.0), poll));
    assertEquals(Verdict.NO_DATA, SchedulingFigures.preemption(List.of(), poll));
  }

  @Test
  void aPacedRunMeasuresNoThroughputAndSoNeverPassesThatTarget() {
    Offer paced = new Offer(5);
    Run raw = new Run(2, 0, S, List.of(1.0, 1.0));
    Run pods = new Run(2, 0, S, List.of(1.0, 1.0));
    assertEquals(Verdict.PASS, SchedulingFigures.throughput(pods, raw, Offer.BURST));
    assertEquals(Verdict.NOT_MEASURED, SchedulingFigures.throughput(pods, raw, paced));
    assertTrue(
        SchedulingFigures.floorLine(pods, raw, pods, paced)
            .contains("target 0.8 (not measured: paced)"));
    assertEquals(
        Verdict.PASS, SchedulingFigures.bindLatency(pods, raw), "latency is compared all the same");
  }

  @Test
  void aPacedSideKeptUpWhenItsLastItemEndedAboutItsMedianAfterItWasDue() {
    Offer paced = new Offer(10);
    // 11 items due over 1 s; each took 200 ms: the last ended at 1.2 s.
    List<Double> fifth = java.util.Collections.nCopies(11, 200.0);
    Run kept = new Run(11, 0, 1_200_000_000L, fifth);
    // The same median, but the last ended at 3 s: a queue built up.
    Run behind = new Run(11, 0, 3 * S, fifth);
    assertEquals("kept up", SchedulingFigures.keptUp(kept, paced));
    assertEquals("FELL BEHIND: latencies include a queue", SchedulingFigures.keptUp(behind, paced));
    assertEquals("lost items", SchedulingFigures.keptUp(new Run(12, 0, S, fifth), paced));
    String line = SchedulingFigures.pacedLine(kept, behind, paced);
    assertTrue(line.startsWith("paced at 10.0 a second: pods bound 9.2 a second (kept up)"), line);
  }
}
