package dev.tandem.slurm.fake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.HttpSlurmTransport;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmException;
import dev.tandem.slurm.SlurmTransport;
import dev.tandem.slurm.SlurmTransport.Request;
import dev.tandem.slurm.SlurmTransport.Response;
import dev.tandem.slurm.SlurmUnavailableException;
import dev.tandem.slurm.fake.FakeSlurmrestd.NodeSpec;
import dev.tandem.slurm.spec.OpenApiSpec;
import dev.tandem.slurm.spec.SpecCheckedTransport;
import dev.tandem.slurm.spec.SpecOperations;
import dev.tandem.slurm.v0044.SlurmClientV0044;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The fake with slurmctld stopped answers as a Slurm 25.11.7 slurmrestd did (status and error
 * number, without the real one's ~10–20 s wait), every answer checked against the v0.0.44 spec, and
 * the v0.0.44 adapter reads each as "unavailable" and the ping as controller down.
 */
class FakeSlurmrestdOutageTest {
  private static final String P = "/slurm/v0.0.44";
  private FakeSlurmrestd fake;
  private SlurmTransport http;
  private SlurmClient client;

  @BeforeEach
  void start() {
    fake =
        FakeSlurmrestd.start(
            FakeSlurmrestd.Options.defaults("0123456789abcdef0123456789abcdef".getBytes()),
            List.of(FakePartition.all("low", 1)),
            List.of(new NodeSpec("n1", 4, 4000, List.of(), "")));
    http =
        new SpecCheckedTransport(
            new HttpSlurmTransport(fake.clientConfig(Duration.ofHours(1))),
            new SpecOperations(OpenApiSpec.load("v0.0.44")));
    client = new SlurmClientV0044(http);
  }

  @AfterEach
  void stop() {
    fake.close();
  }

  private static int error(Response r) {
    return SpecOperations.parse(r.body()).path("errors").get(0).path("error_number").asInt();
  }

  @Test
  void eachPathAnswersAs25117WithSlurmctldStopped() {
    fake.slurmctldDown(true);
    for (String path : List.of("/jobs/", "/nodes/", "/licenses/")) {
      Response r = http.send(Request.get(P + path));
      assertEquals(502, r.status(), path);
      assertEquals(1800, error(r), path);
    }
    Response cancel = http.send(Request.delete(P + "/job/7", Map.of()));
    assertEquals(500, cancel.status());
    assertEquals(1, error(cancel));
    Response job = http.send(Request.get(P + "/job/7"));
    assertEquals(500, job.status());
    assertEquals(-1, error(job));
    Response ping = http.send(Request.get(P + "/ping/"));
    assertEquals(200, ping.status());
    assertFalse(SpecOperations.parse(ping.body()).at("/pings/0/responding").asBoolean(true));
  }

  @Test
  void theAdapterReadsEveryAnswerAsUnavailableAndComesBackWithSlurmctld() {
    assertTrue(client.ping().controllerUp());
    fake.slurmctldDown(true);
    assertFalse(client.ping().controllerUp(), "the licenses probe says why nothing pongs");
    Instant since = Instant.now();
    List<Runnable> calls =
        List.of(
            () -> client.listNodes(null),
            () -> client.listNodes(since),
            () -> client.listJobs(null),
            () -> client.listJobs(since),
            () -> client.getJob(7),
            () -> client.cancel(7, null),
            () -> client.getNode("n1"));
    for (Runnable call : calls) {
      SlurmException e = assertThrows(SlurmException.class, call::run);
      assertInstanceOf(SlurmUnavailableException.class, e, e.toString());
    }
    fake.slurmctldDown(false);
    assertTrue(client.ping().controllerUp());
    assertEquals("n1", client.listNodes(null).items().get(0).name());
  }
}
