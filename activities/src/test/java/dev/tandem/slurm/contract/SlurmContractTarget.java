package dev.tandem.slurm.contract;

import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmClient.ApiVersion;
import dev.tandem.slurm.SlurmClientConfig;
import dev.tandem.slurm.SlurmClients;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One Slurm the contract suite runs against: the real local Slurm 22.05 through v0.0.38, or the
 * simulated slurmrestd (devstack's {@code FakeSlurmrestd}) through v0.0.44.
 *
 * <p>Both targets are configured alike (scripts/slurm-local.sh): static nodes n1–n4 with 4 CPUs and
 * 4000 MB, n3 and n4 with {@code gpu:2}; partitions {@code low} (default, PriorityTier 1) and
 * {@code high} (PriorityTier 10), both on all nodes; a pool {@code spare} of nodes that exist for
 * Slurm only once their slurmd registers; accounting with {@code preempt/qos}: QOS {@code low},
 * {@code normal} (the default, preempts low) and {@code high} (preempts normal and low), all
 * PreemptMode REQUEUE; accounts {@code k8s} (root's default), {@code research}, {@code ml}, {@code
 * physics}. Everything the targets do differently is a method here, documented per target: the
 * suite asserts through these methods instead of skipping or loosening a check silently.
 */
public interface SlurmContractTarget {

  /** The environment ({@code SlurmClientConfig.fromEnv} keys) that reaches this Slurm. */
  Map<String, String> env();

  /** Client configuration from {@link #env()}: minted tokens, API version detected. */
  default SlurmClientConfig config() {
    return SlurmClientConfig.fromEnv(env());
  }

  /**
   * The client the suite exercises. Real Slurm: detected from the server. Fake: the v0.0.44 adapter
   * over a transport that checks every request and every answer against the v0.0.44 spec.
   */
  default SlurmClient client() {
    return SlurmClients.create(config());
  }

  /** The API version detection must find. Real: v0.0.38 (22.05). Fake: v0.0.44 (25.11). */
  ApiVersion apiVersion();

  /** How {@code ping()} reports the Slurm release. Real: {@code 22.05}. Fake: {@code 25.11}. */
  String slurmVersionPrefix();

  /**
   * KillWait as the client reports it. Real (v0.0.38): read with {@code scontrol show config}, 5 s.
   * Fake (v0.0.44): no v0.0.41+ path reports it, so empty and callers use configuration.
   */
  Optional<Duration> expectedKillWait();

  /**
   * Pool node names. Real: declared {@code State=FUTURE} in slurm.conf, hidden until their slurmd
   * registers; {@code deleteNode} returns them to FUTURE. Fake: dynamic nodes ({@code slurmd -Z})
   * that do not exist before they register; {@code deleteNode} removes them. For the suite both are
   * "not listed, not found" before {@link #nodeUp} and after a delete.
   */
  List<String> pool(String prefix);

  /** Starts the pool node's slurmd and returns once Slurm lists it. */
  void nodeUp(String name);

  /** Stops the pool node's slurmd and makes Slurm forget it again. */
  void nodeDown(String name);

  /**
   * Kills the node's slurmd without telling slurmctld. Real: SIGKILL, NOT_RESPONDING after
   * SlurmdTimeout (10 s, ~15 s in practice). Fake: NOT_RESPONDING at once.
   */
  void killSlurmd(String name);

  /**
   * Starts a dynamic node ({@code slurmd -Z -N name --conf conf}, a name slurm.conf does not
   * declare) and returns once Slurm lists it. Targets that cannot run one abort the test.
   */
  default void dynamicNodeUp(String name, String conf) {
    org.junit.jupiter.api.Assumptions.abort("this target cannot start a dynamic slurmd");
  }

  /** Stops a dynamic node started by {@link #dynamicNodeUp} and removes its record. */
  default void dynamicNodeDown(String name) {}
}
