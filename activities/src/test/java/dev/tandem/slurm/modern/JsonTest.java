package dev.tandem.slurm.modern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class JsonTest {
  private static JsonNode j(String s) {
    try {
      return Json.MAPPER.readTree(s);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void noValStructsAreReadOnlyWhenSetAndFinite() {
    assertEquals(60L, Json.number(j("{\"set\":true,\"infinite\":false,\"number\":60}")));
    assertNull(Json.number(j("{\"set\":false,\"infinite\":false,\"number\":60}")));
    assertNull(Json.number(j("{\"set\":true,\"infinite\":true,\"number\":60}")));
    assertNull(Json.number(j("{\"set\":true,\"infinite\":false}")));
    assertEquals(42L, Json.number(j("42")), "some fields and older parsers use plain numbers");
    assertNull(Json.number(j("\"42\"")));
    assertNull(Json.number(null));
    assertNull(Json.number(j("123456789012345678901234567890")), "not wrapped into a long");
    assertNull(Json.number(j("{\"set\":true,\"infinite\":false,\"number\":1e400}")));
    assertEquals(5, Json.count(j("{\"set\":true,\"infinite\":false,\"number\":5}")));
    assertEquals(0, Json.count(j("{\"set\":true,\"infinite\":false,\"number\":4294967296}")));
    assertEquals(0, Json.count(j("-3")));
    assertEquals(0, Json.count(null));
    assertTrue(Json.infinite(j("{\"set\":false,\"infinite\":true,\"number\":0}")));
    assertFalse(Json.infinite(j("7")));
  }

  @Test
  void timestampsZeroAndUnsetAreNull() {
    assertEquals(
        Instant.ofEpochSecond(1763700000L),
        Json.instant(j("{\"set\":true,\"infinite\":false,\"number\":1763700000}")));
    assertNull(Json.instant(j("{\"set\":true,\"infinite\":false,\"number\":0}")));
    assertNull(Json.instant(j("{\"set\":false,\"infinite\":false,\"number\":0}")));
  }

  @Test
  void listsAsArraysOrCommaStrings() {
    assertEquals(List.of("gpu", "all"), Json.stringList(j("[\"gpu\",\"all\"]")));
    assertEquals(List.of("gpu", "all"), Json.stringList(j("\"gpu, all\"")));
    assertEquals(List.of(), Json.stringList(j("\"\"")));
    assertEquals(List.of("IDLE", "DRAIN"), Json.upperList(j("[\"idle\",\"DRAIN\"]")));
  }

  @Test
  void textTreatsEmptyAsAbsent() {
    assertNull(Json.text(j("\"\"")));
    assertEquals("x", Json.text(j("\"x\"")));
    assertNull(Json.text(j("null")));
  }

  @Test
  void gresBecomesTresLikeSbatchDoes() {
    assertEquals("gres/gpu:2", ModernRequests.tresPerNode("gpu:2"));
    assertEquals("gres/gpu:h100:8,gres/nic:1", ModernRequests.tresPerNode("gpu:h100:8, nic:1"));
    assertEquals("gres/gpu:1", ModernRequests.tresPerNode("gres/gpu:1"));
  }

  @Test
  void errorNumbersClassify() {
    assertEquals(SlurmErrors.Kind.NOT_FOUND, SlurmErrors.kind(2017));
    assertEquals(SlurmErrors.Kind.NOT_FOUND, SlurmErrors.kind(2018));
    assertEquals(SlurmErrors.Kind.UNAUTHORIZED, SlurmErrors.kind(1007));
    assertEquals(SlurmErrors.Kind.UNAUTHORIZED, SlurmErrors.kind(6001));
    assertEquals(SlurmErrors.Kind.UNAVAILABLE, SlurmErrors.kind(1800));
    assertEquals(SlurmErrors.Kind.UNAVAILABLE, SlurmErrors.kind(5004));
    assertEquals(SlurmErrors.Kind.REJECTED, SlurmErrors.kind(2000));
    assertEquals(SlurmErrors.Kind.REJECTED, SlurmErrors.kind(2028));
    assertNull(SlurmErrors.kind(0));
    assertNull(SlurmErrors.kind(-1));
  }
}
