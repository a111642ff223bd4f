package dev.tandem.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class HostlistTest {
  @Test
  void expandsRangesListsAndPadding() {
    assertEquals(List.of("n1", "n2", "n3", "n5"), Hostlist.expand("n[1-3,5]"));
    assertEquals(
        List.of("gpu-a-00", "gpu-a-01", "gpu-a-02", "x"), Hostlist.expand("gpu-a-[00-02],x"));
    assertEquals(List.of("r1n1", "r1n2", "r2n1", "r2n2"), Hostlist.expand("r[1-2]n[1-2]"));
    assertEquals(List.of("e2e-0", "e2e-1"), Hostlist.expand("e2e-[0-1]"));
  }

  @Test
  void emptyAndNullAreEmpty() {
    assertEquals(List.of(), Hostlist.expand(""));
    assertEquals(List.of(), Hostlist.expand(null));
    assertEquals(List.of(), Hostlist.expand("(null)"));
  }

  @Test
  void rejectsGarbage() {
    assertThrows(IllegalArgumentException.class, () -> Hostlist.expand("n[1-"));
    assertThrows(IllegalArgumentException.class, () -> Hostlist.expand("n[3-1]"));
    assertThrows(IllegalArgumentException.class, () -> Hostlist.expand("n[a-b]"));
    assertThrows(IllegalArgumentException.class, () -> Hostlist.expand("n]"));
  }
}
