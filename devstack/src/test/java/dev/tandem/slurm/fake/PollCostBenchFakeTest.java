package dev.tandem.slurm.fake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.HttpSlurmTransport;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmClientConfig;
import dev.tandem.slurm.SlurmClients;
import dev.tandem.slurm.bench.CountingTransport;
import dev.tandem.slurm.bench.PollCostBench;
import dev.tandem.slurm.bench.PollCostBench.Sample;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code tandem bench slurm-poll}'s measurement against the simulated fleet: the counts are what
 * the client really sent and got (a full listing carries every node; an idle incremental poll
 * carries none and almost no bytes; a poll after a drain carries the whole node table again, as
 * slurmctld's {@code update_time} rule does), and the bench leaves no drain behind.
 */
class PollCostBenchFakeTest {
  private static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes();
  private static final int NODES = 40;

  @Test
  void measuresFullIdleAndChangingPollsAndLiftsItsDrains() throws Exception {
    List<FakeSlurmrestd.NodeSpec> specs = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (int i = 0; i < NODES; i++) {
      names.add("n-" + i);
      specs.add(new FakeSlurmrestd.NodeSpec("n-" + i, 8, 64_000, List.of(), null));
    }
    try (FakeSlurmrestd fake =
        FakeSlurmrestd.start(
            FakeSlurmrestd.Options.defaults(KEY), List.of(FakePartition.all("low", 1)), specs)) {
      SlurmClientConfig cfg = fake.clientConfig(Duration.ofSeconds(3600));
      CountingTransport counting = new CountingTransport(new HttpSlurmTransport(cfg));
      StringWriter text = new StringWriter();
      try (SlurmClient client = SlurmClients.create(counting, cfg)) {
        PollCostBench bench =
            new PollCostBench(
                client, counting, names, Duration.ofMillis(1_100), new PrintWriter(text));
        PollCostBench.Result r = bench.run(2, 2, 2);
        bench.print("fake", NODES, r);

        assertEquals(2, r.full().size());
        for (Sample s : r.full()) {
          assertEquals(NODES, s.nodes());
          assertTrue(s.bytes() > NODES * 100L, "a full listing carries every node: " + s);
          assertEquals(2, s.requests(), "one node and one job listing: " + s);
        }
        for (Sample s : r.unchanged()) {
          assertEquals(0, s.nodes(), "nothing changed: " + s);
          assertTrue(s.bytes() < 2_000, "an idle poll is small: " + s);
        }
        assertEquals(2, r.changing().size());
        for (Sample s : r.changing()) {
          assertEquals(NODES, s.nodes(), "slurmctld lists the whole table after a change: " + s);
        }
        assertTrue(
            client.listNodes(null).items().stream().noneMatch(n -> n.drainFlag()),
            "the bench undrains what it drained");
      }
      assertTrue(text.toString().contains("incremental, changing"), text.toString());
    }
  }
}
