package dev.tandem.slurm.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmClient.ApiVersion;
import dev.tandem.slurm.SlurmClient.Listing;
import dev.tandem.slurm.SlurmClients;
import dev.tandem.slurm.SlurmNode;
import dev.tandem.slurm.SlurmNotFoundException;
import dev.tandem.slurm.SlurmRejectedException;
import dev.tandem.slurm.SlurmUnsupportedException;
import dev.tandem.slurm.testing.Await;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Node reads and state changes: the contract every target keeps ({@link SlurmContractTarget} names
 * where they differ). Subclasses: {@code SlurmNodesV0038IT} (real Slurm 22.05), {@code
 * SlurmNodesFakeTest} (devstack's simulated v0.0.44 slurmrestd).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class SlurmNodesContract {
  private SlurmContractTarget slurm;
  private SlurmClient client;

  /** The Slurm this suite runs against. */
  protected abstract SlurmContractTarget target();

  @BeforeAll
  void connect() {
    slurm = target();
    client = slurm.client();
    assertEquals(slurm.apiVersion(), client.apiVersion(), "API version");
    try (SlurmClient detected = SlurmClients.create(slurm.config())) {
      assertEquals(slurm.apiVersion(), detected.apiVersion(), "detected API version");
    }
  }

  @AfterAll
  void close() {
    if (client != null) {
      client.close();
    }
  }

  static Map<String, SlurmNode> byName(List<SlurmNode> nodes) {
    return nodes.stream().collect(Collectors.toMap(SlurmNode::name, n -> n));
  }

  @Test
  void pingSaysControllerUp() {
    SlurmClient.Ping p = client.ping();
    assertTrue(p.controllerUp());
    assertTrue(p.slurmVersion().startsWith(slurm.slurmVersionPrefix()), p.slurmVersion());
  }

  @Test
  void listsStaticNodesWithPartitionsAndGres() {
    Listing<SlurmNode> l = client.listNodes(null);
    assertTrue(l.changed());
    Map<String, SlurmNode> nodes = byName(l.items());
    for (String n : List.of("n1", "n2", "n3", "n4")) {
      SlurmNode node = nodes.get(n);
      assertNotNull(node, n + " in " + nodes.keySet());
      assertEquals(List.of("low", "high"), node.partitions());
      assertEquals(4, node.cpus());
      assertEquals("127.0.0.1", node.address());
      assertNotNull(node.slurmdStartTime());
      assertFalse(node.future());
    }
    assertEquals("gpu:2", nodes.get("n3").gres());
    assertEquals("", nodes.get("n1").gres());
    // Pool nodes are not listed until their slurmd registers (real: FUTURE nodes hidden; fake:
    // dynamic nodes that do not exist yet; SlurmContractTarget#pool).
    assertFalse(nodes.containsKey(slurm.pool("spare").get(3)));
  }

  @Test
  void drainShowsReasonAndFlagThenUndrainClearsIt() {
    String reason = "tandem:manual: IT " + UUID.randomUUID();
    try {
      client.drain("n1", reason);
      SlurmNode n = client.getNode("n1");
      assertTrue(n.drainFlag(), n.toString());
      assertEquals(reason, n.reason());
      assertEquals("root", n.reasonSetBy());
      assertNotNull(n.reasonChangedAt());
      // Draining again replaces the reason.
      client.drain("n1", reason + " again");
      assertEquals(reason + " again", client.getNode("n1").reason());
      client.undrain("n1");
      SlurmNode after = client.getNode("n1");
      assertFalse(after.drainFlag(), after.toString());
      client.undrain("n1"); // idempotent
    } finally {
      client.undrain("n1");
    }
  }

  @Test
  void downThenResumeAndResumeIsIdempotent() {
    try {
      client.down("n1", "tandem:remediation: IT down");
      SlurmNode n = client.getNode("n1");
      assertTrue(n.down(), n.toString());
      assertEquals("tandem:remediation: IT down", n.reason());
      client.resume("n1");
      assertFalse(client.getNode("n1").down());
      client.resume("n1"); // already resumed: no error
    } finally {
      client.resume("n1");
    }
    Await.until(
        "n1 responding again",
        Duration.ofSeconds(20),
        () -> client.getNode("n1"),
        n -> !n.notResponding() && !n.down());
  }

  @Test
  void unknownNodeIsNotFound() {
    assertThrows(SlurmNotFoundException.class, () -> client.getNode("no-such-node"));
    assertThrows(SlurmNotFoundException.class, () -> client.drain("no-such-node", "tandem:x: y"));
    assertThrows(SlurmNotFoundException.class, () -> client.undrain("no-such-node"));
  }

  @Test
  void killedSlurmdShowsNotResponding() {
    String node = slurm.pool("spare").get(0);
    slurm.nodeUp(node);
    try {
      assertFalse(client.getNode(node).notResponding());
      slurm.killSlurmd(node);
      // Real: SlurmdTimeout is 10 s in slurm-local.sh, NOT_RESPONDING after ~15 s. Fake: at once.
      SlurmNode n =
          Await.until(
              node + " NOT_RESPONDING",
              Duration.ofSeconds(60),
              Duration.ofSeconds(1),
              () -> client.getNode(node),
              SlurmNode::notResponding);
      assertTrue(n.notResponding());
    } finally {
      slurm.nodeDown(node);
    }
  }

  @Test
  void deleteNodeRemovesPoolNodeAndRefusesStaticNodes() {
    // Real: the pool node returns to FUTURE (hidden); fake: the dynamic node is deleted. Static
    // nodes: 22.05's adapter refuses them itself (from slurm.conf), 25.11 answers 2028; both are
    // SlurmUnsupportedException.
    String node = slurm.pool("spare").get(1);
    slurm.nodeUp(node);
    try {
      assertEquals("idle", client.getNode(node).state());
      client.deleteNode(node);
      assertThrows(SlurmNotFoundException.class, () -> client.getNode(node));
      assertFalse(byName(client.listNodes(null).items()).containsKey(node));
      client.deleteNode(node); // already gone: no error
    } finally {
      slurm.nodeDown(node);
    }
    assertThrows(SlurmUnsupportedException.class, () -> client.deleteNode("n2"));
    assertEquals("idle", client.getNode("n2").state());
    client.deleteNode("no-such-node"); // unknown: nothing to delete
  }

  @Test
  void creatingANodeThatExistsLeavesItInPlace() {
    // Slurm 25.11.7 answers a create of an existing name with 2168 and deletes that node; the
    // v0.0.44 adapter looks the name up first and never posts it (the fake deletes as 25.11.7
    // does, so a post would show here as a missing node). 22.05 (v0.0.38) creates no nodes over
    // REST: the adapter refuses before sending anything.
    String node = slurm.pool("spare").get(2);
    slurm.nodeUp(node);
    try {
      String line = "NodeName=" + node + " State=FUTURE CPUs=4 RealMemory=4000";
      if (slurm.apiVersion() == ApiVersion.V0_0_38) {
        assertThrows(SlurmUnsupportedException.class, () -> client.createNode(line));
      } else {
        SlurmRejectedException e =
            assertThrows(SlurmRejectedException.class, () -> client.createNode(line));
        assertEquals(2168, e.errorNumber(), e.getMessage());
      }
      assertEquals("idle", client.getNode(node).state());
      assertTrue(byName(client.listNodes(null).items()).containsKey(node));
    } finally {
      slurm.nodeDown(node);
    }
  }

  @Test
  void deleteNodeRemovesADynamicNode() {
    // A dynamic node (slurmd -Z) carries its --conf settings; after its slurmd stops, deleteNode
    // removes the record (22.05: scontrol delete; 25.11: DELETE /node/{name}).
    String node = "dyn-contract";
    slurm.dynamicNodeUp(node, "Feature=h100,ib Gres=gpu:h100:2 Weight=5");
    try {
      SlurmNode n = byName(client.listNodes(null).items()).get(node);
      assertNotNull(n, node + " listed");
      assertEquals(List.of("h100", "ib"), n.features().stream().sorted().toList());
      assertEquals("gpu:h100:2", n.gres());
      slurm.killSlurmd(node);
      client.deleteNode(node);
      assertThrows(SlurmNotFoundException.class, () -> client.getNode(node));
      assertFalse(byName(client.listNodes(null).items()).containsKey(node));
      client.deleteNode(node); // already gone: no error
    } finally {
      slurm.dynamicNodeDown(node);
    }
  }

  @Test
  void incrementalNodeListingSeesNothingThenTheChange() {
    Listing<SlurmNode> first = client.listNodes(null);
    // Other tests' changes settle (a resumed node flaps NOT_RESPONDING for ~3 s); then a
    // listing since the last one must say "unchanged".
    Listing<SlurmNode> quiet =
        Await.until(
            "an unchanged node listing",
            Duration.ofSeconds(30),
            Duration.ofSeconds(1),
            new java.util.function.Supplier<Listing<SlurmNode>>() {
              Listing<SlurmNode> prev = first;

              @Override
              public Listing<SlurmNode> get() {
                prev = client.listNodes(prev.updateTime());
                return prev;
              }
            },
            l -> !l.changed());
    assertTrue(quiet.items().isEmpty());
    String reason = "tandem:manual: IT incremental " + UUID.randomUUID();
    try {
      client.drain("n1", reason);
      Listing<SlurmNode> after = client.listNodes(quiet.updateTime());
      assertTrue(after.changed(), "a drain must show as a change");
      assertEquals(reason, byName(after.items()).get("n1").reason());
    } finally {
      client.undrain("n1");
    }
  }
}
