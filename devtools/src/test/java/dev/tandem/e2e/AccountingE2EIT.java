package dev.tandem.e2e;

import static dev.tandem.e2e.SchedPods.EVERY;
import static dev.tandem.e2e.SchedPods.LIMIT;
import static dev.tandem.e2e.SchedPods.uid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.PlaceholderJob;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.testing.Await;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Pods scheduled through Slurm on a Slurm with accounting (slurmdbd on MariaDB, {@code
 * preempt/qos}; scripts/slurm-local.sh): a PriorityClass mapped to QOS {@code high} preempts a
 * running {@code sbatch} job of QOS {@code low}, the commands of docs/scheduling.md's worked
 * example, and the pod's job is charged to its namespace's account ({@code default=ml}); a QOS or
 * account the accounting database does not know is a refusal on the pod, in Slurm's words, with no
 * job and no retry.
 */
class AccountingE2EIT {
  private static final String SET = "e2e";
  private static final String NODE = SET + "-0";

  @AutoClose private static E2EStack e2e;
  private static SchedPods pods;

  @BeforeAll
  static void start() throws Exception {
    e2e =
        E2EStack.start(
            Map.of(
                "TANDEM_SCHED_PRIORITY_CLASSES",
                "training-high=qos:high;gold=qos:gold",
                "TANDEM_SCHED_NAMESPACE_ACCOUNTS",
                "default=ml"));
    e2e.ownNodeSet(SET, 1);
    pods = new SchedPods(e2e);
  }

  @AfterEach
  void cleanUp() {
    pods.deleteAll();
  }

  @Test
  void aPodOfAHighPriorityClassPreemptsALowQosSbatchJobAndIsBound() throws Exception {
    // docs/scheduling.md, "Worked example": a low-QOS job holds every node of the NodeSet whole
    // (one here, three in tandem dev's gpu-a).
    long low =
        e2e.sbatchWith(
            "-p", "tandem", "--qos=low", "-N", "1", "--exclusive", "--wrap", "sleep 600");
    try {
      SlurmJob running =
          Await.until(
              "low job running", LIMIT, EVERY, () -> e2e.slurm.getJob(low), SlurmJob::running);
      assertEquals("low", running.qos());
      assertEquals(List.of(NODE), running.nodeList());
      assertEquals("k8s", running.account(), "root's default account");

      e2e.kubectl(
          "apply",
          "-f",
          ChartIdentity.repositoryRoot().resolve("examples/trainer-high.yaml").toString());
      Pod bound = pods.awaitBound("trainer-high");
      assertEquals(pods.k8sNodeOfSlurmNode(NODE), bound.getSpec().getNodeName());
      PlaceholderJob placeholder = SchedulingE2EIT.onlyJob(uid(bound), pods);
      SlurmJob job = e2e.slurm.getJob(placeholder.jobId());
      assertEquals("high", job.qos(), job.toString());
      assertEquals(List.of(NODE), job.nodeList());

      // Slurm requeued the low job (QOS low: PreemptMode REQUEUE); it waits for the node.
      SlurmJob requeued =
          Await.until(
              "low job requeued",
              LIMIT,
              EVERY,
              () -> e2e.slurm.getJob(low),
              j -> j.pending() && j.restartCount() >= 1);
      assertEquals("low", requeued.qos());
      // Accounting reports show whose pod it was, beside Slurm's own jobs (22.05 stores the comment
      // with the job's end).
      pods.delete("trainer-high");
      pods.awaitGone("trainer-high");
      // slurmdbd may take the job's end before its start (name and QOS): wait for the whole row.
      String row =
          "tandem-pod-"
              + uid(bound)
              + "|ml|high|tandem.dev/pod-uid="
              + uid(bound)
              + " pod=default/trainer-high";
      Await.until(
          "sacct lists the placeholder",
          LIMIT,
          EVERY,
          () -> sacct(Long.toString(job.id()), "JobName,Account,QOS,Comment"),
          out -> out.trim().equals(row));
    } finally {
      e2e.scancel(low);
      e2e.kubectl("delete", "priorityclass", "training-high", "--ignore-not-found");
    }
  }

  @Test
  void anUnknownQosOrAccountIsARefusalOnThePodNotARetryLoop() throws Exception {
    e2e.kubectl("create", "priorityclass", "gold", "--value=1000");
    try {
      String qosRefused = "Invalid qos specification (Slurm error 2066)";
      String accountRefused =
          "Invalid account or account/partition combination specified (Slurm error 2045)";
      Map<String, List<String>> byName =
          Map.of(
              "qos-annotation", List.of(qosRefused, ", QOS no-such-qos"),
              "qos-class", List.of(qosRefused, ", QOS gold"),
              "account", List.of(accountRefused, ", account no-such-account"));
      Pod qos = pods.create("qos-annotation", Map.of("tandem.dev/qos", "no-such-qos"));
      Pod byClass = pods.createWithPriorityClass("qos-class", "gold");
      Pod account = pods.create("account", Map.of("tandem.dev/account", "no-such-account"));
      for (Map.Entry<String, List<String>> e : byName.entrySet()) {
        PodCondition c = pods.awaitCondition(e.getKey(), "SlurmScheduled", "False");
        assertEquals("InvalidPod", c.getReason(), c.getMessage());
        for (String part : e.getValue()) {
          assertTrue(c.getMessage().contains(part), c.getMessage());
        }
        assertTrue(c.getMessage().contains("Slurm refused the placeholder job"), c.getMessage());
        Event ev = pods.awaitEvent(e.getKey(), "InvalidPod");
        assertEquals(c.getMessage(), ev.getMessage());
      }
      // No job waits or runs for them, and none is submitted again: one submit each at most.
      Thread.sleep(5_000);
      for (Pod p : List.of(qos, byClass, account)) {
        assertTrue(pods.liveJobs(uid(p)).isEmpty(), p.getMetadata().getName());
        assertTrue(pods.jobs(uid(p)).size() <= 1, pods.jobs(uid(p)).toString());
        assertEquals(
            null, pods.get(p.getMetadata().getName()).orElseThrow().getSpec().getNodeName());
      }
      // Nothing is wedged: a pod with a known QOS is bound meanwhile.
      Pod fits = pods.create("fits", Map.of("tandem.dev/qos", "low", "tandem.dev/account", "ml"));
      pods.awaitBound("fits");
      SlurmJob j = e2e.slurm.getJob(SchedulingE2EIT.onlyJob(uid(fits), pods).jobId());
      assertEquals("low", j.qos());
      assertEquals("ml", j.account());
    } finally {
      e2e.kubectl("delete", "priorityclass", "gold", "--ignore-not-found");
    }
  }

  /**
   * Fair share: account {@code physics} has used the node, {@code ml} has not. Two pods wait for
   * the node, physics' first; when it frees, ml's is bound first and physics' waits (without fair
   * share the older job would go first).
   */
  @Test
  void aPodOfAnAccountOverItsFairShareWaitsBehindOneOfAnAccountUnderIt() throws Exception {
    // Usage survives restarts in the accounting database: start both accounts from zero.
    cmd("sacctmgr", "-i", "modify", "account", "physics,ml", "set", "RawUsage=0");
    long used =
        e2e.sbatchWith(
            "-p", "tandem", "-A", "physics", "-N", "1", "--exclusive", "--wrap", "sleep 8");
    Await.until(
        "physics' job ended", LIMIT, EVERY, () -> e2e.slurm.getJob(used), SlurmJob::finished);
    // slurmctld adds usage and computes fair share every PriorityCalcPeriod (1 minute on the
    // local Slurm); the factor may follow the usage by one period.
    Await.until(
        "physics' fair share below ml's",
        Duration.ofSeconds(180),
        Duration.ofSeconds(2),
        () -> List.of(fairShare("physics"), fairShare("ml")),
        f -> f.get(0) < f.get(1));

    long blocker = e2e.sbatchWith("-p", "tandem", "-N", "1", "--exclusive", "--wrap", "sleep 600");
    try {
      Await.until(
          "blocker running", LIMIT, EVERY, () -> e2e.slurm.getJob(blocker), SlurmJob::running);
      Map<String, String> whole = Map.of("tandem.dev/exclusive", "exclusive");
      Pod physics = pods.create("physics-1", with(whole, "tandem.dev/account", "physics"));
      long physicsJob = queuedJob(physics);
      Pod ml = pods.create("ml-1", with(whole, "tandem.dev/account", "ml"));
      long mlJob = queuedJob(ml);
      assertTrue(
          priority(mlJob) > priority(physicsJob),
          "ml " + priority(mlJob) + " above physics " + priority(physicsJob));

      e2e.scancel(blocker);
      pods.awaitBound("ml-1");
      assertEquals(null, pods.get("physics-1").orElseThrow().getSpec().getNodeName());
      SlurmJob waiting = e2e.slurm.getJob(physicsJob);
      assertTrue(waiting.pending(), waiting.toString());
      assertEquals("physics", waiting.account());

      pods.delete("ml-1");
      pods.awaitBound("physics-1");
    } finally {
      e2e.scancel(blocker);
    }
  }

  /**
   * slurmdbd and MariaDB stopped for a minute: pods are still scheduled and sbatch jobs still run;
   * when they are back, {@code sacct} has every job of the outage, the pod's with its name.
   */
  @Test
  void schedulingGoesOnWhileAccountingIsDownAndNothingIsLost() throws Exception {
    long downAt = System.nanoTime();
    e2e.slurmScript("db-stop");
    long sbatchJob;
    long podJob;
    try {
      Pod p = pods.create("outage-1", Map.of());
      pods.awaitBound("outage-1");
      podJob = SchedulingE2EIT.onlyJob(uid(p), pods).jobId();
      sbatchJob = e2e.sbatchWith("-p", "tandem", "-A", "ml", "-N", "1", "--wrap", "sleep 1");
      Await.until(
          "sbatch job done", LIMIT, EVERY, () -> e2e.slurm.getJob(sbatchJob), SlurmJob::finished);
      pods.delete("outage-1");
      pods.awaitGone("outage-1");
      long left = Duration.ofSeconds(60).toNanos() - (System.nanoTime() - downAt);
      Thread.sleep(Math.max(0, left / 1_000_000));
    } finally {
      e2e.slurmScript("start");
    }
    String both =
        Await.until(
            "sacct has the outage's jobs",
            Duration.ofSeconds(120),
            Duration.ofSeconds(1),
            () -> sacct(podJob + "," + sbatchJob, "JobID,Account,QOS,State,Comment"),
            out -> out.lines().count() == 2 && out.contains("pod=default/outage-1"));
    assertTrue(both.contains("pod=default/outage-1"), both);
    assertTrue(both.contains(sbatchJob + "|ml|normal|COMPLETED|"), both);
  }

  /** root's fair-share factor in {@code account} ({@code sshare}): 1 unused, lower used more. */
  private static double fairShare(String account) {
    return cmd("sshare", "-n", "-P", "-A", account, "-u", "root", "-o", "Account,User,FairShare")
        .lines()
        .map(l -> l.trim().split("\\|"))
        .filter(f -> f.length == 3 && f[0].equals(account) && f[1].equals("root"))
        .mapToDouble(f -> Double.parseDouble(f[2]))
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("no fair share of root in " + account));
  }

  private static long priority(long job) {
    return Long.parseLong(cmd("squeue", "-h", "-j", Long.toString(job), "-o", "%Q").trim());
  }

  /**
   * {@code sacct} rows of {@code jobs} (comma-separated ids), fields {@code format}, '|'-separated.
   */
  private static String sacct(String jobs, String format) {
    return cmd("sacct", "-X", "-n", "-P", "-j", jobs, "-o", format);
  }

  /** A Slurm command against the stack's Slurm; its output. */
  private static String cmd(String... args) {
    try {
      return e2e.run(List.of(args));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The pod's placeholder once Slurm lists it waiting; its id. */
  private static long queuedJob(Pod p) {
    return Await.until(
            p.getMetadata().getName() + "'s job queued",
            LIMIT,
            EVERY,
            () -> pods.jobs(uid(p)),
            jobs -> jobs.size() == 1 && jobs.get(0).phase() == PlaceholderJob.Phase.WAITING)
        .get(0)
        .jobId();
  }

  private static Map<String, String> with(Map<String, String> m, String key, String value) {
    Map<String, String> all = new java.util.HashMap<>(m);
    all.put(key, value);
    return all;
  }
}
