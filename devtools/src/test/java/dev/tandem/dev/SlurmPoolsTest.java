package dev.tandem.dev;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SlurmPoolsTest {
  private final SlurmPools pools = SlurmPools.parse("spare:4,gpu-a:8,e2e:8");

  @Test
  void poolNodesAreThePrefixWithAnOrdinalBelowTheCount() {
    assertTrue(pools.isPoolNode("gpu-a-0"));
    assertTrue(pools.isPoolNode("gpu-a-7"));
    assertTrue(pools.isPoolNode("spare-3"));
    assertFalse(pools.isPoolNode("gpu-a-8"), "beyond the count");
    assertFalse(pools.isPoolNode("gpu-a-01"), "not the name slurm-local.sh declares");
    assertFalse(pools.isPoolNode("gpu-a"), "no ordinal");
    assertFalse(pools.isPoolNode("gpu-0"), "another prefix");
    assertFalse(pools.isPoolNode("n1"), "a static node");
  }

  @Test
  void malformedEntriesAreIgnored() {
    SlurmPools p = SlurmPools.parse("x,:3,y:abc,z:2,");
    assertTrue(p.isPoolNode("z-1"));
    assertFalse(p.isPoolNode("y-0"));
    assertFalse(p.isPoolNode("x-0"));
  }
}
