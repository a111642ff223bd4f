package dev.tandem.workflows.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class DrainReasonTest {
  @Test
  void formatsAndParsesEveryCause() {
    for (DrainCause c : DrainCause.values()) {
      String r = DrainReason.format(c, "detail here");
      assertEquals("tandem:" + c.label() + ": detail here", r);
      assertEquals(Optional.of(new DrainReason(c, "detail here")), DrainReason.parse(r));
      assertTrue(DrainReason.ownedByTandem(r));
    }
  }

  @Test
  void adminReasonsAreNotTandems() {
    assertFalse(DrainReason.ownedByTandem("disk"));
    assertFalse(DrainReason.ownedByTandem("Not responding"));
    assertFalse(DrainReason.ownedByTandem(null));
    assertEquals(Optional.empty(), DrainReason.parse("bad DIMM"));
    assertEquals(Optional.empty(), DrainReason.parse("tandem:unknown-cause: x"));
  }

  @Test
  void detailIsOneLineAndBounded() {
    String r = DrainReason.format(DrainCause.MANUAL, "line1\nline2\t\u0000" + "x".repeat(500));
    assertFalse(r.contains("\n"));
    assertEquals(DrainReason.MAX_LENGTH, r.length());
  }
}
