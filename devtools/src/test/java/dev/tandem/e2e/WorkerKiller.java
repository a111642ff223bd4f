package dev.tandem.e2e;

import dev.tandem.slurm.SlurmNode;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Kills the worker JVM with SIGKILL at moments chosen by the scenario's progress, never by the
 * clock, and starts a new one each time:
 *
 * <ol>
 *   <li>A background thread scrapes the running worker's {@code tandem_activity_started_total}
 *       every 100 ms. Each worker counts from 0, so the run's cumulative count is the sum of the
 *       killed workers' last scraped counts (the base) plus the current worker's.
 *   <li>By count: when the cumulative count reaches the plan's next threshold ({@code firstAt},
 *       then every {@code every}).
 *   <li>By moment: at the first sight of each of the plan's {@link CrashPlan.Moment}s, read from
 *       the invariant monitor's latest Slurm poll and pod deletions.
 *   <li>By the scenario: {@link #killNow} at a step of its choosing, with something to do while no
 *       worker runs (e.g. cancel the job a draining node waits for).
 *   <li>A kill waits until the current worker has started at least one activity, so every restart
 *       makes progress before the next kill (kills never starve the scenario). A moment or
 *       threshold reached meanwhile is taken as soon as that holds.
 *   <li>After a kill a new worker is started at once; the kill is recorded ({@link KillPoint}) with
 *       the time until its {@code /readyz} answered and until it started its first activity.
 * </ol>
 */
final class WorkerKiller implements AutoCloseable {
  /** Something to do while no worker runs. */
  interface WhileDead {
    void run() throws Exception;
  }

  private static final Duration PROGRESS_LIMIT = Duration.ofSeconds(90);

  private final E2EStack e2e;
  private final InvariantMonitor monitor;
  private final PhaseBoard phases;
  private final CrashPlan plan;
  private final String prefix;
  private final ReentrantLock killing = new ReentrantLock();
  private final List<KillPoint> kills = Collections.synchronizedList(new ArrayList<>());
  private final List<String> errors = Collections.synchronizedList(new ArrayList<>());
  private final Set<CrashPlan.Moment> pendingMoments;
  private final Set<String> nodesSeen = new HashSet<>();
  private final ActivityCounter activities;
  private final Thread thread;

  private volatile boolean closed;
  private long nextThreshold;

  WorkerKiller(
      E2EStack e2e, InvariantMonitor monitor, PhaseBoard phases, CrashPlan plan, String nodeSet) {
    this.e2e = e2e;
    this.monitor = monitor;
    this.phases = phases;
    this.plan = plan;
    this.prefix = nodeSet + "-";
    this.activities = new ActivityCounter(e2e);
    this.pendingMoments =
        plan.moments().isEmpty()
            ? EnumSet.noneOf(CrashPlan.Moment.class)
            : EnumSet.copyOf(plan.moments());
    this.nextThreshold = plan.every() > 0 ? plan.firstAt() : Long.MAX_VALUE;
    this.thread = new Thread(this::loop, "crash-suite-killer");
    thread.setDaemon(true);
  }

  void start() {
    e2e.superviseWorker(false); // this class restarts it, at once, and measures
    thread.start();
  }

  List<KillPoint> kills() {
    return List.copyOf(kills);
  }

  List<String> errors() {
    return List.copyOf(errors);
  }

  /** Activity attempts started so far by every worker of the run (as last scraped). */
  long cumulative() {
    return activities.cumulative();
  }

  /**
   * Kills the worker now (once it has made progress since its start), runs {@code whileDead}, and
   * starts a new worker.
   */
  void killNow(String why, WhileDead whileDead) throws Exception {
    killing.lock();
    try {
      awaitProgress(PROGRESS_LIMIT);
      kill("scenario: " + why, whileDead);
    } finally {
      killing.unlock();
    }
  }

  // ---- the background thread ----

  private void loop() {
    while (!closed) {
      try {
        if (killing.tryLock()) {
          try {
            tick();
          } finally {
            killing.unlock();
          }
        }
      } catch (InterruptedException e) {
        return;
      } catch (Exception | AssertionError e) {
        errors.add(Instant.now() + " killer: " + e);
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private void tick() throws Exception {
    if (!activities.scrape()) {
      return;
    }
    CrashPlan.Moment moment = null;
    String trigger = null;
    if (cumulative() >= nextThreshold) {
      trigger = "activity #" + nextThreshold;
    } else {
      moment = momentReached();
      trigger = moment == null ? null : "moment: " + moment.label;
    }
    if (trigger == null || !activities.madeProgress()) {
      return; // a moment or threshold reached meanwhile stays due
    }
    kill(trigger, null);
    if (moment != null) {
      pendingMoments.remove(moment);
    }
    while (nextThreshold <= cumulative()) {
      nextThreshold += plan.every();
    }
  }

  private CrashPlan.Moment momentReached() {
    Map<String, SlurmNode> nodes = monitor.latestNodes();
    for (String n : nodes.keySet()) {
      if (n.startsWith(prefix)) {
        nodesSeen.add(n);
      }
    }
    int deleted = monitor.podDeletions().size();
    for (CrashPlan.Moment m : pendingMoments) {
      if (m.reached(nodes, deleted, nodesSeen, prefix)) {
        return m;
      }
    }
    return null;
  }

  // ---- killing ----

  private void kill(String trigger, WhileDead whileDead) throws Exception {
    activities.scrape();
    long count = activities.cumulative();
    long inFlight = activities.inFlight();
    List<String> just = activities.recent();
    String phaseText = phases.describe();
    String slurmText = KillPoint.slurmText(monitor.latestNodes(), prefix);
    Instant at = Instant.now();
    long t0 = System.nanoTime();
    long pid = e2e.killWorker();
    activities.workerKilled();
    if (whileDead != null) {
      whileDead.run();
    }
    e2e.startWorker();
    long readyMs = (System.nanoTime() - t0) / 1_000_000;
    long progressMs = awaitProgress(PROGRESS_LIMIT) ? (System.nanoTime() - t0) / 1_000_000 : -1;
    KillPoint k =
        new KillPoint(
            kills.size() + 1,
            trigger,
            at,
            pid,
            count,
            just,
            inFlight,
            phaseText,
            slurmText,
            readyMs,
            progressMs);
    kills.add(k);
    System.out.println("crash suite: " + k.describe());
  }

  /** Waits (bounded) until the running worker has started an activity; false if it did not. */
  private boolean awaitProgress(Duration limit) throws InterruptedException {
    long end = System.nanoTime() + limit.toNanos();
    while (System.nanoTime() < end) {
      if (activities.scrape() && activities.madeProgress()) {
        return true;
      }
      TimeUnit.MILLISECONDS.sleep(50);
    }
    return false;
  }

  /** Stops killing; makes sure a worker runs. */
  @Override
  public void close() {
    closed = true;
    thread.interrupt();
    try {
      thread.join(TimeUnit.SECONDS.toMillis(120));
      killing.lock();
      try {
        if (e2e.workerPid() < 0) {
          e2e.startWorker();
        }
      } finally {
        killing.unlock();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      errors.add("could not start the worker at the end: " + e);
    }
  }
}
