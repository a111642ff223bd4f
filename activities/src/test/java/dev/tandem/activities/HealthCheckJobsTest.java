package dev.tandem.activities;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.JobSubmission;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmNode;
import dev.tandem.slurm.SlurmNotFoundException;
import dev.tandem.workflows.model.NodeRef;
import dev.tandem.workflows.remediation.HealthCheck;
import dev.tandem.workflows.remediation.HealthCheckResult;
import dev.tandem.workflows.remediation.RemediationPolicy;
import dev.tandem.workflows.remediation.RemediationTarget;
import java.lang.reflect.Proxy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link HealthCheckJobs} over an in-memory Slurm: what is sent, in which order, and the result.
 */
class HealthCheckJobsTest {
  private final List<String> calls = new ArrayList<>();
  private final Map<Long, SlurmJob> jobs = new HashMap<>();
  private final Map<String, List<String>> partitions = new HashMap<>();
  private JobSubmission submitted;
  private final HealthCheckJobs checks = new HealthCheckJobs(slurm());

  private SlurmClient slurm() {
    return (SlurmClient)
        Proxy.newProxyInstance(
            getClass().getClassLoader(),
            new Class<?>[] {SlurmClient.class},
            (p, m, a) ->
                switch (m.getName()) {
                  case "createReservation" -> {
                    calls.add("reserve " + a[0] + " " + a[1] + " " + a[2]);
                    yield null;
                  }
                  case "deleteReservation" -> {
                    calls.add("unreserve " + a[0]);
                    yield null;
                  }
                  case "listJobs" ->
                      new SlurmClient.Listing<>(true, List.copyOf(jobs.values()), null);
                  case "getNode" -> node((String) a[0]);
                  case "submit" -> {
                    submitted = (JobSubmission) a[0];
                    calls.add("submit " + submitted.name());
                    long id = 40 + jobs.size();
                    jobs.put(id, job(id, submitted.name(), "PENDING", null, "Reservation"));
                    yield id;
                  }
                  case "getJob" -> {
                    SlurmJob j = jobs.get((Long) a[0]);
                    if (j == null) {
                      throw new SlurmNotFoundException("job " + a[0]);
                    }
                    yield j;
                  }
                  case "cancel" -> {
                    calls.add("cancel " + a[0]);
                    yield null;
                  }
                  default -> throw new UnsupportedOperationException(m.getName());
                });
  }

  private SlurmNode node(String name) {
    return new SlurmNode(
        name,
        "idle",
        Set.of("DRAIN"),
        null,
        null,
        null,
        8,
        0,
        1000,
        null,
        null,
        partitions.getOrDefault(name, List.of()),
        List.of(),
        null,
        null,
        null,
        null,
        null);
  }

  private static SlurmJob job(long id, String name, String state, Integer exit, String reason) {
    return new SlurmJob(
        id,
        name,
        null,
        state,
        Set.of(),
        reason,
        "",
        List.of(),
        "p",
        null,
        null,
        "root",
        0,
        Instant.EPOCH,
        null,
        null,
        null,
        10L,
        exit,
        SlurmJob.Request.UNKNOWN);
  }

  private static RemediationTarget target(HealthCheck hc) {
    RemediationPolicy p = new RemediationPolicy(true, 0, null, null, null, null, 0, null, null, hc);
    return new RemediationTarget(
        "host-7",
        true,
        List.of(
            new NodeRef("default", "gpu", "gpu-1", 1), new NodeRef("default", "gpu", "gpu-2", 2)),
        List.of("default/gpu"),
        Map.of(),
        p);
  }

  @Test
  void reservesFirstThenSubmitsOneJobInItOnExactlyTheNodes() {
    partitions.put("gpu-1", List.of("batch", "gpu"));
    partitions.put("gpu-2", List.of("gpu"));
    long id = checks.start(target(new HealthCheck("nvidia-smi -q\n", 300)), "tok-1");
    assertEquals(
        List.of("reserve tandem-check-host-7 [gpu-1, gpu-2] PT15M", "submit tandem-check-tok-1"),
        calls);
    assertEquals("tandem-check-host-7", submitted.reservation());
    assertEquals(List.of("gpu-1", "gpu-2"), submitted.nodeList());
    assertEquals(2, submitted.nodeCount());
    assertEquals(5L, submitted.timeLimitMinutes());
    assertEquals("gpu", submitted.partition(), "the partition both nodes are in");
    assertEquals("#!/bin/sh\nnvidia-smi -q\n", submitted.script());

    assertEquals(id, checks.start(target(new HealthCheck("nvidia-smi -q\n", 300)), "tok-1"));
    assertEquals(1, calls.stream().filter(c -> c.startsWith("submit")).count(), "found by name");
  }

  @Test
  void noHealthCheckInThePolicyIsRefused() {
    assertThrows(RuntimeException.class, () -> checks.start(target(null), "tok"));
    assertEquals(List.of(), calls);
  }

  @Test
  void resultsFailClosed() {
    jobs.put(1L, job(1, "x", "PENDING", null, "ReqNodeNotAvail"));
    jobs.put(2L, job(2, "x", "RUNNING", null, "None"));
    jobs.put(3L, job(3, "x", "COMPLETED", 0, "None"));
    jobs.put(4L, job(4, "x", "FAILED", 3, "NonZeroExitCode"));
    jobs.put(5L, job(5, "x", "TIMEOUT", null, "TimeLimit"));
    jobs.put(6L, job(6, "x", "CANCELLED", 143, "None"));
    jobs.put(7L, job(7, "x", "COMPLETED", 2, "None"));
    assertEquals(HealthCheckResult.running("PENDING, reason ReqNodeNotAvail"), checks.result(1));
    assertEquals(HealthCheckResult.State.RUNNING, checks.result(2).state());
    assertEquals(HealthCheckResult.passed("COMPLETED, exit code 0"), checks.result(3));
    assertEquals(
        HealthCheckResult.failed("FAILED, exit code 3, reason NonZeroExitCode"), checks.result(4));
    assertEquals(HealthCheckResult.State.FAILED, checks.result(5).state());
    assertEquals(HealthCheckResult.State.FAILED, checks.result(6).state());
    assertEquals(HealthCheckResult.State.FAILED, checks.result(7).state());
    HealthCheckResult gone = checks.result(99);
    assertEquals(HealthCheckResult.State.FAILED, gone.state());
    assertTrue(gone.detail().startsWith("job vanished"), gone.detail());
  }

  @Test
  void endCancelsThenDeletesTheReservation() {
    checks.end("host-7", 41);
    checks.end("host-7", 0);
    assertEquals(
        List.of("cancel 41", "unreserve tandem-check-host-7", "unreserve tandem-check-host-7"),
        calls);
  }
}
