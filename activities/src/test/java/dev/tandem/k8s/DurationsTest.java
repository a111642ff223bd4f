package dev.tandem.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class DurationsTest {
  @Test
  void parsesUnitsAndSums() {
    assertEquals(OptionalLong.of(90), Durations.parseSeconds("90s"));
    assertEquals(OptionalLong.of(1800), Durations.parseSeconds("30m"));
    assertEquals(OptionalLong.of(7200), Durations.parseSeconds("2h"));
    assertEquals(OptionalLong.of(86400), Durations.parseSeconds("1d"));
    assertEquals(OptionalLong.of(5400), Durations.parseSeconds("1h30m"));
    assertEquals(OptionalLong.of(93784), Durations.parseSeconds("1d2h3m4s"));
  }

  @Test
  void refusesEverythingElse() {
    for (String s :
        new String[] {
          "", "30", "5 parsecs", "1.5h", "-1h", "2w", "h", "1h 30m", "1s1s1s1s1s", null
        }) {
      assertTrue(Durations.parseSeconds(s).isEmpty(), String.valueOf(s));
    }
  }

  @Test
  void formatsShortest() {
    assertEquals("1h30m", Durations.format(5400));
    assertEquals("2h", Durations.format(7200));
    assertEquals("1d1s", Durations.format(86401));
    assertEquals("0s", Durations.format(0));
    for (long s : new long[] {1, 59, 61, 3599, 3601, 86399, 90061}) {
      assertEquals(OptionalLong.of(s), Durations.parseSeconds(Durations.format(s)));
    }
  }
}
