package dev.tandem.slurm.v0038;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FutureNodesTest {
  @TempDir Path tmp;

  @Test
  void findsFutureDeclaredNodes() {
    Set<String> s =
        FutureNodes.parse(
            List.of(
                "# NodeName=x[1-9] State=FUTURE",
                "NodeName=n[1-2] NodeAddr=127.0.0.1 Port=[17001-17002] State=UNKNOWN",
                "NodeName=gpu-a-[0-1] Port=[17009-17010] Gres=gpu:2 state=future  # pool",
                "nodename=DEFAULT State=FUTURE",
                "NodeName=f1 \\",
                "  CPUs=2",
                "NodeName=s1 State=IDLE",
                "PartitionName=low Nodes=ALL State=UP"));
    assertEquals(Set.of("gpu-a-0", "gpu-a-1", "f1"), s);
  }

  @Test
  void readsAndRereadsTheFile() throws Exception {
    Path conf = tmp.resolve("slurm.conf");
    Files.writeString(conf, "NodeName=spare-[0-1] State=FUTURE\n");
    FutureNodes f = new FutureNodes(conf);
    assertEquals(Optional.of(true), f.declaredFuture("spare-1"));
    assertEquals(Optional.of(false), f.declaredFuture("n1"));
    Files.writeString(conf, "NodeName=n1 State=FUTURE\n");
    Files.setLastModifiedTime(
        conf, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() + 5000));
    assertEquals(Optional.of(true), f.declaredFuture("n1"));
    assertEquals(Optional.empty(), new FutureNodes(null).declaredFuture("n1"));
    assertEquals(Optional.empty(), new FutureNodes(tmp.resolve("none")).declaredFuture("n1"));
  }
}
