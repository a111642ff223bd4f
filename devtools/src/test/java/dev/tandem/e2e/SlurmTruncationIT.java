package dev.tandem.e2e;

import static dev.tandem.e2e.FaultStack.EVERY;
import static dev.tandem.e2e.FaultStack.LIMIT;
import static dev.tandem.e2e.FaultStack.msSince;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.testing.Await;
import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.NodePhase;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Fault suite, slurmrestd dying mid-answer. The worker (activities and watchers) reaches slurmrestd
 * through a {@link dev.tandem.devstack.faults.TcpProxy}; for a while the proxy cuts every answer
 * after a number of bytes that changes every two seconds (inside the headers, just past them, in
 * the middle of the body, one byte short of the whole answer of {@code /nodes}, {@code /jobs} and
 * {@code /node/<name>}); then slurmrestd itself is killed with SIGKILL and started again.
 *
 * <p>Meanwhile a rolling update waits at a node that is draining around a running job, and the
 * other nodes serve. A truncated answer taken for a valid listing would show as an empty job list
 * (the busy node drained and its pod deleted under its job: the monitor's first invariant) or as
 * nodes gone from Slurm (a serving node shown {@code unknown}). Neither may happen; SlurmReachable
 * turns False within seconds and True again after, and the rollout completes once the job ends.
 */
class SlurmTruncationIT {
  private static final String SET = "e2e";
  private static final Duration CUTTING = Duration.ofSeconds(24);
  private static final Duration KILLED = Duration.ofSeconds(10);
  private static FaultStack f;
  private static E2EStack e2e;

  @BeforeAll
  static void start() throws Exception {
    f = FaultStack.withNodeSet(SET, 3, Map.of());
    e2e = f.e2e;
  }

  @AfterAll
  static void stop() {
    if (f != null) {
      f.close(); // deletes the NodeSet first
    }
  }

  @Test
  void aTruncatedAnswerIsNeverAValidListing() throws Exception {
    String busy = SET + "-2";
    long job = e2e.sbatch(busy, 900);
    Set<String> pods = Set.of(SET + "-0", SET + "-1", busy);
    try (InvariantMonitor mon = f.monitor(SET);
        PhaseRecorder rec = new PhaseRecorder(e2e, List.of(SET), EVERY).start()) {
      Await.until("job running", LIMIT, EVERY, () -> e2e.slurm.getJob(job), SlurmJob::running);
      mon.jobRunning(job, busy);
      SlurmOutageIT.awaitBusy(e2e, SET, busy);
      mon.rollingUpdate(pods, 1);
      e2e.patchSpec(SET, SlurmOutageIT.template("slurmd:v2"));
      e2e.awaitPhase(busy, NodePhase.DRAINING);
      String rev = e2e.nodeSetStatus(SET).status().updateRevision();
      Await.until(
          "the idle nodes updated, the busy one draining around its job",
          LIMIT,
          EVERY,
          () -> e2e.nodeSetStatus(SET).nodes(),
          ns ->
              ns.stream()
                  .allMatch(
                      n ->
                          n.pod().equals(busy)
                              || (n.phase() == NodePhase.READY && rev.equals(n.revision()))));

      // 1. Answers cut mid-way, at cut points that change every two seconds.
      List<Integer> cuts = cutPoints(List.of("/nodes", "/jobs", "/node/" + busy));
      java.time.Instant wall0 = java.time.Instant.now();
      long t0 = System.nanoTime();
      f.slurmProxy.cutResponses(cuts.get(0));
      long show = f.awaitCondition(SET, Condition.SLURM_REACHABLE, Condition.FALSE, t0, LIMIT);
      String why = f.condition(SET, Condition.SLURM_REACHABLE).message();
      for (int i = 1; msSince(t0) < CUTTING.toMillis(); i++) {
        Thread.sleep(2000);
        f.slurmProxy.cutResponses(cuts.get(i % cuts.size()));
      }
      long cutEnd = System.nanoTime();
      f.slurmProxy.pass();
      long cut = f.slurmProxy.cutConnections();
      long back = f.awaitCondition(SET, Condition.SLURM_REACHABLE, Condition.TRUE, cutEnd, LIMIT);

      // 2. slurmrestd killed (SIGKILL) while the worker polls it, started again after a while.
      long t1 = System.nanoTime();
      f.restKill();
      long showKill = f.awaitCondition(SET, Condition.SLURM_REACHABLE, Condition.FALSE, t1, LIMIT);
      Thread.sleep(Math.max(0, KILLED.toMillis() - msSince(t1)));
      long killEnd = System.nanoTime();
      f.restStart();
      long backKill =
          f.awaitCondition(SET, Condition.SLURM_REACHABLE, Condition.TRUE, killEnd, LIMIT);

      // Nothing moved while answers were cut or slurmrestd was dead; nobody was shown unknown.
      assertEquals(
          Map.of(),
          Map.copyOf(
              mon.podDeletions().entrySet().stream()
                  .filter(d -> !d.getValue().isBefore(wall0))
                  .collect(java.util.stream.Collectors.toMap(d -> d.getKey(), d -> d.getValue()))),
          "pods deleted during the faults");
      Set<NodePhase> steady = Set.of(NodePhase.READY, NodePhase.DRAINING);
      assertEquals(List.of(), rec.phasesOutside(t0, killEnd, steady), "nodes moved on");
      assertEquals(List.of(), rec.unknownToSlurm(t0, killEnd), "a node taken for gone");
      assertEquals(NodePhase.DRAINING, e2e.nodeStatus(busy).phase());
      assertTrue(cut > 10, "the proxy cut only " + cut + " answers");

      // The job ends: the rollout completes.
      mon.jobCancelRequested(job);
      e2e.scancel(job);
      EndStates.await(e2e, SET, 3, LIMIT);
      mon.rollingUpdateDone();
      mon.checkJobs();
      assertEquals(List.of(), mon.violations());
      System.out.printf(
          "FAULT slurmrestd-cut: %d ms of answers cut at %s bytes (%d connections cut);"
              + " SlurmReachable=False after %d ms (\"%s\"), True %d ms after the cutting"
              + " stopped; rest-kill: False after %d ms, True %d ms after rest-start;"
              + " max unavailable seen %d%n",
          (cutEnd - t0) / 1_000_000,
          cuts,
          cut,
          show,
          why,
          back,
          showKill,
          backKill,
          mon.maxUnavailableSeen());
    } finally {
      try {
        e2e.scancel(job);
      } catch (IOException e) {
        // already gone
      }
    }
  }

  /**
   * Where to cut: inside the headers, just past them, and for each path the middle of its whole
   * answer and one byte short of it (as slurmrestd sends them now).
   */
  private static List<Integer> cutPoints(List<String> paths) throws IOException {
    Set<Integer> out = new TreeSet<>(List.of(20, 90));
    for (String p : paths) {
      int whole = answerBytes(p);
      out.add(whole / 2);
      out.add(whole - 1);
    }
    return new ArrayList<>(out);
  }

  /** Bytes slurmrestd sends in answer to {@code GET /slurm/v0.0.38<path>}, headers included. */
  private static int answerBytes(String path) throws IOException {
    Map<String, String> env = e2e.stack.slurm().env();
    URI url = URI.create(env.get("SLURM_REST_URL"));
    String token = Files.readString(Path.of(env.get("SLURM_TOKEN_FILE"))).trim();
    try (Socket s = new Socket(url.getHost(), url.getPort())) {
      s.setSoTimeout(10_000);
      OutputStream o = s.getOutputStream();
      o.write(
          ("GET /slurm/v0.0.38"
                  + path
                  + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n"
                  + "X-SLURM-USER-NAME: root\r\nX-SLURM-USER-TOKEN: "
                  + token
                  + "\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      o.flush();
      // Headers up to the blank line, then Content-Length bytes (slurmrestd always sends it).
      InputStream in = s.getInputStream();
      StringBuilder head = new StringBuilder();
      while (!head.toString().endsWith("\r\n\r\n")) {
        int b = in.read();
        if (b < 0) {
          throw new IOException("slurmrestd closed before its headers ended: " + head);
        }
        head.append((char) b);
      }
      java.util.regex.Matcher m =
          java.util.regex.Pattern.compile("(?i)content-length:\\s*(\\d+)").matcher(head);
      if (!m.find()) {
        throw new IOException("no Content-Length in " + head);
      }
      return head.length() + Integer.parseInt(m.group(1));
    }
  }
}
