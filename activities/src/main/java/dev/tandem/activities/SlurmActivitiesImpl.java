package dev.tandem.activities;

import dev.tandem.slurm.Hostlist;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmException;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmNode;
import dev.tandem.slurm.SlurmNotFoundException;
import dev.tandem.slurm.SlurmUnsupportedException;
import dev.tandem.slurm.SlurmViews;
import dev.tandem.workflows.activities.SlurmActivities;
import dev.tandem.workflows.model.DrainReason;
import dev.tandem.workflows.model.NodeJobs;
import dev.tandem.workflows.model.SlurmNodeView;
import io.temporal.failure.ApplicationFailure;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link SlurmActivities} over a {@link SlurmClient}. Fail closed: when Slurm cannot be read the
 * call fails (and Temporal retries it); it never answers "idle", "drained" or "no jobs" by default.
 * Errors are translated by {@link SlurmFailures}.
 */
public class SlurmActivitiesImpl implements SlurmActivities {
  private static final Logger log = LoggerFactory.getLogger(SlurmActivitiesImpl.class);

  private final SlurmClient slurm;
  private final Clock clock;
  private final SlurmView view;

  public SlurmActivitiesImpl(SlurmClient slurm, Clock clock) {
    this(slurm, clock, new SlurmView(slurm, clock));
  }

  /** With the worker's shared {@link SlurmView} (one per worker, read by every drain wait). */
  public SlurmActivitiesImpl(SlurmClient slurm, Clock clock, SlurmView view) {
    this.slurm = Objects.requireNonNull(slurm, "slurm");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.view = Objects.requireNonNull(view, "view");
  }

  @Override
  public SlurmNodeView getNode(String name) {
    try {
      return view(slurm.getNode(name));
    } catch (SlurmNotFoundException e) {
      return SlurmNodeView.unknown(name, clock.instant());
    } catch (SlurmException e) {
      throw SlurmFailures.translate("read node " + name, e);
    }
  }

  @Override
  public SlurmNodeView drain(String name, String reason) {
    String what = "drain node " + name;
    requireTandemReason(what, reason);
    return run(
        what,
        () -> {
          SlurmNode n = slurm.getNode(name);
          // An administrator's reason on a drained or down node is never replaced: the node
          // already takes no new jobs, and the reason is what the administrator needs to see.
          if ((n.drainFlag() || n.down()) && adminReason(n.reason())) {
            log.info("{}: keeping administrator's reason \"{}\"", what, n.reason());
            return view(n);
          }
          if (n.drainFlag() && reason.equals(n.reason())) {
            return view(n);
          }
          slurm.drain(name, reason);
          log.info("{}: \"{}\" (was {} \"{}\")", what, reason, n.state(), n.reason());
          return view(slurm.getNode(name));
        });
  }

  @Override
  public SlurmNodeView undrain(String name) {
    String what = "undrain node " + name;
    return run(
        what,
        () -> {
          SlurmNode n = slurm.getNode(name);
          if (!DrainReason.ownedByTandem(n.reason())) {
            return view(n); // an administrator's drain (or none): not ours to lift
          }
          if (n.down() && !n.notResponding()) {
            // Down with Tandem's reason (forceDown) and slurmd answering again: RESUME clears
            // both DOWN and DRAIN; UNDRAIN alone would leave the node down for good.
            slurm.resume(name);
          } else if (n.drainFlag()) {
            slurm.undrain(name);
          } else {
            return view(n);
          }
          log.info("{}: lifted \"{}\"", what, n.reason());
          return view(afterPing(name, n.notResponding()));
        });
  }

  /** How long an undrain waits for Slurm's re-ping of a node that was responding. */
  static final Duration PING_WAIT = Duration.ofSeconds(3);

  /**
   * The node as Slurm shows it once the ping that follows an UNDRAIN/RESUME is answered. Slurm
   * (22.05 at least) flags the node NOT_RESPONDING until its slurmd answers that ping, about a
   * second. Returning that transient view would leave the workflow showing a healthy node as not
   * responding until its next resync, because the Slurm watcher may never see the short flag come
   * and go. A node that was not responding before is returned as it is.
   */
  private SlurmNode afterPing(String name, boolean wasNotResponding) {
    SlurmNode n = slurm.getNode(name);
    long end = System.nanoTime() + PING_WAIT.toNanos();
    while (!wasNotResponding && n.notResponding() && System.nanoTime() < end) {
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return n;
      }
      n = slurm.getNode(name);
    }
    return n;
  }

  /**
   * The jobs that may hold {@code name}, from the worker's shared {@link SlurmView}.
   *
   * <ol>
   *   <li>Read a snapshot begun at most {@link SlurmView#FRESH} before this call (shared with every
   *       drain wait asking about then).
   *   <li>If that snapshot shows the node's DRAIN flag, it is enough: the node took no new job
   *       after the snapshot's node listing, and its job listing began after that, so it shows
   *       every job that can still be on the node. Slurm never lifts a drain by itself (a DOWN node
   *       without it may return to service on its own, ReturnToService, so DOWN alone is not
   *       enough); only an explicit undrain, a new job and a drain again, all within the 500 ms of
   *       one snapshot, could slip past.
   *   <li>Otherwise (the drain may have been set after the snapshot began, or the node is not in
   *       it) read a snapshot begun after this call: exactly what a listing of its own would show.
   *   <li>A snapshot that could not be made fails the call (Temporal retries): never "no jobs".
   * </ol>
   */
  @Override
  public NodeJobs jobsOnNode(String name) {
    return run(
        "list jobs on node " + name,
        () -> {
          SlurmView.Snapshot snap = view.read(SlurmView.FRESH);
          SlurmNode node = snap.nodes().get(name);
          if (node == null || !node.drainFlag()) {
            snap = view.read(Duration.ZERO);
          }
          List<Long> ids = new ArrayList<>();
          for (SlurmJob j : snap.jobs()) {
            if (!j.mayHoldNodes()) {
              continue;
            }
            if (j.nodeList().isEmpty() && j.nodes().isBlank()) {
              // A job that may hold nodes but names none: where it runs is unknown, so whether
              // this node is idle is too (fail closed).
              throw ApplicationFailure.newFailure(
                  "Slurm listed job "
                      + j.id()
                      + " ("
                      + j.state()
                      + ") without its nodes; cannot tell what runs on "
                      + name,
                  SlurmFailures.UNAVAILABLE);
            }
            if (runsOn(j, name)) {
              ids.add(j.id());
            }
          }
          ids.sort(null);
          return new NodeJobs(name, ids);
        });
  }

  @Override
  public SlurmNodeView forceDown(String name, String reason) {
    String what = "force node " + name + " down";
    requireTandemReason(what, reason);
    return run(
        what,
        () -> {
          SlurmNode n = slurm.getNode(name);
          if (n.down()) {
            return view(n); // already down: its jobs are already being requeued or killed
          }
          slurm.down(name, reason);
          log.warn("{}: \"{}\" (was {} \"{}\")", what, reason, n.state(), n.reason());
          return view(slurm.getNode(name));
        });
  }

  @Override
  public boolean removeNode(String name) {
    try {
      slurm.deleteNode(name);
      return true;
    } catch (SlurmUnsupportedException e) {
      log.info(
          "remove node {}: not possible here ({}); it stays down/future", name, e.getMessage());
      return false;
    } catch (SlurmNotFoundException e) {
      return true; // already gone: what removal wanted
    } catch (SlurmException e) {
      throw SlurmFailures.translate("remove node " + name, e);
    }
  }

  /** Slurm lists the job's nodes as a hostlist; the expanded list is authoritative if present. */
  private static boolean runsOn(SlurmJob j, String node) {
    List<String> nodes = j.nodeList().isEmpty() ? Hostlist.expand(j.nodes()) : j.nodeList();
    return nodes.contains(node);
  }

  private static boolean adminReason(String reason) {
    return reason != null && !reason.isBlank() && !DrainReason.ownedByTandem(reason);
  }

  private static void requireTandemReason(String what, String reason) {
    if (DrainReason.parse(reason).isEmpty()) {
      // Only Tandem reasons can be lifted by Tandem later: refuse to set any other.
      throw SlurmFailures.rejected(
          what + ": reason \"" + reason + "\" is not a Tandem reason (tandem:<cause>: <detail>)");
    }
  }

  private <T> T run(String what, Supplier<T> op) {
    try {
      return op.get();
    } catch (SlurmException e) {
      throw SlurmFailures.translate(what, e);
    }
  }

  private SlurmNodeView view(SlurmNode n) {
    return SlurmViews.node(n, clock.instant());
  }
}
