package dev.tandem.workers;

import dev.tandem.workflows.schedule.PriorityMapping;
import dev.tandem.workflows.schedule.SchedulingConfig;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * How pods become placeholder jobs, as the operator configured it ({@code TANDEM_SCHED_*}, see
 * docs/configuration.md). Slurm's {@code KillWait} is not known here: {@link KillWaitLookup} asks
 * Slurm at start and falls back to {@link #killWaitFallbackSeconds}; {@link #toConfig} then gives
 * the {@link SchedulingConfig} workflows carry.
 *
 * <p>The map syntaxes use {@code ;} between entries and {@code =} between key and value. Neither
 * can occur in an extended resource name, a label value, a PriorityClass name or a Slurm name, so
 * no entry can be read two ways. The GPU model is introduced by {@code @} (not the workflow's
 * internal {@code <resource>=<model>}), which keeps the single {@code =} of an entry unambiguous.
 *
 * @param gres extended resource (and optional GPU model) to GRES, keyed as {@link
 *     SchedulingConfig#gres()} is
 * @param gpuModelLabel node-selector label naming the GPU model
 * @param priorityClasses PriorityClass name to QOS and/or nice
 * @param defaultPartition partition for pods without {@code tandem.dev/partition}, or null
 * @param namespaceAccounts namespace to the Slurm account of its pods without {@code
 *     tandem.dev/account}
 * @param killWaitFallbackSeconds {@code KillWait} when Slurm does not report it
 * @param graceMarginSeconds how much shorter than {@code KillWait} a pod's grace must be
 */
public record SchedulingSettings(
    Map<String, String> gres,
    String gpuModelLabel,
    Map<String, PriorityMapping> priorityClasses,
    String defaultPartition,
    Map<String, String> namespaceAccounts,
    long killWaitFallbackSeconds,
    long graceMarginSeconds) {

  static final String GRES = "TANDEM_SCHED_GRES";
  static final String GPU_MODEL_LABEL = "TANDEM_SCHED_GPU_MODEL_LABEL";
  static final String PRIORITY_CLASSES = "TANDEM_SCHED_PRIORITY_CLASSES";
  static final String DEFAULT_PARTITION = "TANDEM_SCHED_DEFAULT_PARTITION";
  static final String NAMESPACE_ACCOUNTS = "TANDEM_SCHED_NAMESPACE_ACCOUNTS";
  static final String KILL_WAIT = "TANDEM_SCHED_KILL_WAIT";
  static final String GRACE_MARGIN = "TANDEM_SCHED_GRACE_MARGIN";

  /** A label key: optional DNS-subdomain prefix, then a name. */
  private static final Pattern LABEL_KEY =
      Pattern.compile(
          "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
              + "[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$");

  /** A Slurm name: GRES name or type, QOS, partition. */
  static final Pattern SLURM_NAME = Pattern.compile("^[A-Za-z0-9_][A-Za-z0-9_.-]*$");

  /** Slurm's largest {@code KillWait}. */
  static final long MAX_KILL_WAIT = 65533;

  public SchedulingSettings {
    gres = Map.copyOf(gres);
    priorityClasses = Map.copyOf(priorityClasses);
    namespaceAccounts = Map.copyOf(namespaceAccounts);
  }

  /** The configuration workflows carry, with the {@code KillWait} in force. */
  public SchedulingConfig toConfig(long killWaitSeconds) {
    return new SchedulingConfig(
        gres,
        gpuModelLabel,
        priorityClasses,
        defaultPartition,
        namespaceAccounts,
        killWaitSeconds,
        graceMarginSeconds);
  }

  public static SchedulingSettings from(Env env) {
    SchedulingConfig d = SchedulingConfig.defaults();
    Map<String, String> gres = SchedulingMaps.gres(env.string(GRES, null), d.gres());
    String label = env.string(GPU_MODEL_LABEL, d.gpuModelLabel());
    if (!LABEL_KEY.matcher(label).matches() || label.length() > 316) {
      throw new ConfigException(
          GPU_MODEL_LABEL
              + "=\""
              + label
              + "\" is not a label key, e.g. nvidia.com/gpu.product (optional DNS prefix and '/',"
              + " then letters, digits, '-', '_', '.')");
    }
    Map<String, PriorityMapping> classes =
        SchedulingMaps.priorityClasses(env.string(PRIORITY_CLASSES, null));
    String partition = env.string(DEFAULT_PARTITION, null);
    if (partition != null && !SLURM_NAME.matcher(partition).matches()) {
      throw new ConfigException(
          DEFAULT_PARTITION + "=\"" + partition + "\" is not a Slurm partition name");
    }
    long killWait =
        wholeSeconds(
            KILL_WAIT,
            env.duration(KILL_WAIT, Duration.ofSeconds(d.killWaitSeconds()), Duration.ZERO));
    if (killWait > MAX_KILL_WAIT) {
      throw new ConfigException(
          KILL_WAIT + "=" + killWait + "s is longer than Slurm allows (" + MAX_KILL_WAIT + "s)");
    }
    long margin =
        wholeSeconds(
            GRACE_MARGIN,
            env.duration(GRACE_MARGIN, Duration.ofSeconds(d.graceMarginSeconds()), Duration.ZERO));
    if (margin >= killWait) {
      throw new ConfigException(
          GRACE_MARGIN
              + " ("
              + margin
              + "s) must be shorter than "
              + KILL_WAIT
              + " ("
              + killWait
              + "s): otherwise no pod's grace period fits");
    }
    Map<String, String> accounts =
        SchedulingMaps.namespaceAccounts(env.string(NAMESPACE_ACCOUNTS, null));
    return new SchedulingSettings(gres, label, classes, partition, accounts, killWait, margin);
  }

  private static long wholeSeconds(String name, Duration d) {
    if (d.toMillis() % 1000 != 0) {
      throw new ConfigException(
          name + "=" + d.toMillis() + "ms is not whole seconds (Slurm counts KillWait in seconds)");
    }
    return d.toSeconds();
  }
}
