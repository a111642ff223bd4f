package dev.tandem.workflows.schedule;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.Map;
import java.util.TreeMap;

/**
 * How pods become placeholder jobs: set by the operator (worker configuration), carried in the
 * workflow input so a running workflow keeps the values it started with.
 *
 * @param gres extended resource to GRES name: key {@code <resource>} (e.g. {@code nvidia.com/gpu})
 *     or {@code <resource>=<model>} where {@code <model>} is the pod's value of the {@link
 *     #gpuModelLabel} node-selector label (e.g. {@code nvidia.com/gpu=A100}); value the GRES name
 *     and optional type without the count (e.g. {@code gpu} or {@code gpu:a100}). The model key
 *     wins over the plain one. An extended resource with no entry makes the pod invalid.
 * @param gpuModelLabel node-selector label that names the GPU model, or null
 * @param priorityClasses PriorityClass name to QOS and/or nice
 * @param defaultPartition partition when the pod has no {@code tandem.dev/partition}, or null for
 *     Slurm's default partition
 * @param namespaceAccounts Kubernetes namespace to the Slurm account its pods are charged to when
 *     they have no {@code tandem.dev/account}; a namespace not listed: the Slurm user's default
 * @param killWaitSeconds Slurm's {@code KillWait}: read from Slurm where the API gives it, else
 *     configured (the worker resolves it before starting workflows)
 * @param graceMarginSeconds how much shorter than {@code KillWait} a pod's grace period must be, so
 *     the pod has stopped before Slurm kills the preempted job and gives its resources away
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record SchedulingConfig(
    Map<String, String> gres,
    String gpuModelLabel,
    Map<String, PriorityMapping> priorityClasses,
    String defaultPartition,
    Map<String, String> namespaceAccounts,
    long killWaitSeconds,
    long graceMarginSeconds) {

  /** Slurm's default {@code KillWait}. */
  public static final long SLURM_DEFAULT_KILL_WAIT = 30;

  public SchedulingConfig {
    gres = gres == null ? Map.of() : new TreeMap<>(gres);
    priorityClasses = priorityClasses == null ? Map.of() : new TreeMap<>(priorityClasses);
    namespaceAccounts = namespaceAccounts == null ? Map.of() : new TreeMap<>(namespaceAccounts);
    if (killWaitSeconds < 0 || graceMarginSeconds < 0) {
      throw new IllegalArgumentException("killWaitSeconds and graceMarginSeconds must be >= 0");
    }
  }

  /** {@code nvidia.com/gpu -> gpu}, model label {@code nvidia.com/gpu.product}, margin 5 s. */
  public static SchedulingConfig defaults() {
    return new SchedulingConfig(
        Map.of("nvidia.com/gpu", "gpu"),
        "nvidia.com/gpu.product",
        Map.of(),
        null,
        Map.of(),
        SLURM_DEFAULT_KILL_WAIT,
        5);
  }

  /** The longest grace period a pod may have: {@code KillWait} minus the margin. */
  public long maxGraceSeconds() {
    return killWaitSeconds - graceMarginSeconds;
  }
}
