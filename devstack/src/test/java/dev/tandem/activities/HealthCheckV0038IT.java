package dev.tandem.activities;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.JobSubmission;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.local.LocalSlurm;
import dev.tandem.slurm.testing.Await;
import dev.tandem.workflows.model.NodeRef;
import dev.tandem.workflows.remediation.HealthCheck;
import dev.tandem.workflows.remediation.HealthCheckResult;
import dev.tandem.workflows.remediation.RemediationPolicy;
import dev.tandem.workflows.remediation.RemediationTarget;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The health-check job against the real local Slurm 22.05: reservations through scontrol, a job in
 * the reservation on exactly the node, its result, and the end. Uses the static node n4, which no
 * other IT reserves. Only Slurm is used (the Kubernetes and Temporal clients are never called).
 */
class HealthCheckV0038IT {
  private static final String NODE = "n4";
  private static final String K8S_NODE = "hc-it-host";
  private static SlurmClient slurm;
  private static KubernetesClient unusedKube;
  private static WorkflowServiceStubs unusedStubs;
  private static RemediationActivitiesImpl activities;
  private Long other;

  @BeforeAll
  static void start() {
    slurm = LocalSlurm.get().client();
    unusedKube =
        new KubernetesClientBuilder()
            .withConfig(new ConfigBuilder().withMasterUrl("https://127.0.0.1:1").build())
            .build();
    // Lazy: never connects unless called, and the health-check calls never call it.
    unusedStubs =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget("127.0.0.1:1").build());
    activities =
        new RemediationActivitiesImpl(
            unusedKube,
            slurm,
            WorkflowClient.newInstance(unusedStubs),
            RebootActions.parse("annotation", unusedKube, Clock.systemUTC()),
            0,
            Clock.systemUTC());
  }

  @AfterAll
  static void stop() {
    slurm.deleteReservation(HealthCheckJobs.reservation(K8S_NODE));
    unusedStubs.shutdownNow();
    unusedKube.close();
    slurm.close();
  }

  @AfterEach
  void cancelOther() {
    if (other != null) {
      slurm.cancel(other, null);
    }
  }

  private static RemediationTarget target(String script) {
    RemediationPolicy p =
        new RemediationPolicy(
            true, 0, null, null, null, null, 0, null, null, new HealthCheck(script, 120));
    return new RemediationTarget(
        K8S_NODE, true, List.of(new NodeRef("default", "n", NODE, 4)), List.of(), Map.of(), p);
  }

  private static HealthCheckResult awaitEnd(long id) {
    return Await.until(
        "health-check job " + id + " to end",
        Duration.ofSeconds(90),
        Duration.ofMillis(500),
        () -> activities.healthCheckResult(id),
        r -> r.state() != HealthCheckResult.State.RUNNING);
  }

  @Test
  void aPassingCheckRunsInTheReservationWhichKeepsOtherJobsOffUntilItEnds() {
    String token = UUID.randomUUID().toString();
    // A job of someone else for the same node, submitted once the reservation holds it.
    long id = activities.startHealthCheck(target("sleep 4\nexit 0\n"), token);
    assertEquals(id, activities.startHealthCheck(target("sleep 4\nexit 0\n"), token), "one job");
    other =
        slurm.submit(
            JobSubmission.builder("hc-it-other")
                .nodeList(List.of(NODE))
                .script("#!/bin/sh\nsleep 1\n")
                .timeLimitMinutes(1L)
                .build());
    SlurmJob running =
        Await.until(
            "the check to run on " + NODE,
            Duration.ofSeconds(60),
            () -> slurm.getJob(id),
            j -> !j.pending());
    assertEquals(List.of(NODE), running.nodeList(), running.toString());
    assertEquals(HealthCheckResult.State.PASSED, awaitEnd(id).state(), "exit 0 in the reservation");
    SlurmJob blocked = slurm.getJob(other);
    assertTrue(blocked.pending(), "the reservation keeps other jobs off the node: " + blocked);

    activities.endHealthCheck(K8S_NODE, id);
    activities.endHealthCheck(K8S_NODE, id); // idempotent: ended job, absent reservation
    SlurmJob after =
        Await.until(
            "the other job to run once the reservation is gone",
            Duration.ofSeconds(60),
            () -> slurm.getJob(other),
            j -> !j.pending());
    assertEquals(List.of(NODE), after.nodeList());
  }

  @Test
  void aFailingScriptFailsWithItsExitCodeAndAVanishedJobFails() {
    long id = activities.startHealthCheck(target("exit 3"), UUID.randomUUID().toString());
    HealthCheckResult r = awaitEnd(id);
    assertEquals(HealthCheckResult.State.FAILED, r.state(), r.toString());
    assertTrue(r.detail().contains("exit code 3"), r.detail());
    activities.endHealthCheck(K8S_NODE, id);

    HealthCheckResult gone = activities.healthCheckResult(987_654_321L);
    assertEquals(HealthCheckResult.State.FAILED, gone.state());
    assertTrue(gone.detail().startsWith("job vanished"), gone.detail());
  }

  @Test
  void reservationsAreIdempotentBothWays() {
    String name = "tandem-check-it-idem";
    slurm.createReservation(name, List.of(NODE), Duration.ofMinutes(2));
    slurm.createReservation(name, List.of(NODE), Duration.ofMinutes(2));
    slurm.deleteReservation(name);
    slurm.deleteReservation(name);
  }
}
