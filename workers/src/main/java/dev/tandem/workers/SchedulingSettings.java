package dev.tandem.workers;

import dev.tandem.workflows.schedule.PriorityMapping;
import dev.tandem.workflows.schedule.SchedulingConfig;
import java.time.Duration;
import java.util.LinkedHashMap;
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
 * @param killWaitFallbackSeconds {@code KillWait} when Slurm does not report it
 * @param graceMarginSeconds how much shorter than {@code KillWait} a pod's grace must be
 */
public record SchedulingSettings(
    Map<String, String> gres,
    String gpuModelLabel,
    Map<String, PriorityMapping> priorityClasses,
    String defaultPartition,
    long killWaitFallbackSeconds,
    long graceMarginSeconds) {

  static final String GRES = "TANDEM_SCHED_GRES";
  static final String GPU_MODEL_LABEL = "TANDEM_SCHED_GPU_MODEL_LABEL";
  static final String PRIORITY_CLASSES = "TANDEM_SCHED_PRIORITY_CLASSES";
  static final String DEFAULT_PARTITION = "TANDEM_SCHED_DEFAULT_PARTITION";
  static final String KILL_WAIT = "TANDEM_SCHED_KILL_WAIT";
  static final String GRACE_MARGIN = "TANDEM_SCHED_GRACE_MARGIN";

  /** Extended resource name: {@code <domain>/<name>}, as Kubernetes allows them. */
  private static final Pattern RESOURCE =
      Pattern.compile(
          "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
              + "/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$");

  /** A label value (the GPU model), non-empty. */
  private static final Pattern LABEL_VALUE =
      Pattern.compile("^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$");

  /** A label key: optional DNS-subdomain prefix, then a name. */
  private static final Pattern LABEL_KEY =
      Pattern.compile(
          "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
              + "[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$");

  /** A Slurm name: GRES name or type, QOS, partition. */
  private static final Pattern SLURM_NAME = Pattern.compile("^[A-Za-z0-9_][A-Za-z0-9_.-]*$");

  /** A PriorityClass name (DNS subdomain). */
  private static final Pattern PRIORITY_CLASS =
      Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");

  /** Slurm's nice range (slurm.h {@code NICE_OFFSET} minus 3). */
  static final long MAX_NICE = 2147483645L;

  /** Slurm's largest {@code KillWait}. */
  static final long MAX_KILL_WAIT = 65533;

  public SchedulingSettings {
    gres = Map.copyOf(gres);
    priorityClasses = Map.copyOf(priorityClasses);
  }

  /** The configuration workflows carry, with the {@code KillWait} in force. */
  public SchedulingConfig toConfig(long killWaitSeconds) {
    return new SchedulingConfig(
        gres,
        gpuModelLabel,
        priorityClasses,
        defaultPartition,
        killWaitSeconds,
        graceMarginSeconds);
  }

  public static SchedulingSettings from(Env env) {
    SchedulingConfig d = SchedulingConfig.defaults();
    Map<String, String> gres = gres(env.string(GRES, null), d.gres());
    String label = env.string(GPU_MODEL_LABEL, d.gpuModelLabel());
    if (!LABEL_KEY.matcher(label).matches() || label.length() > 316) {
      throw new ConfigException(
          GPU_MODEL_LABEL
              + "=\""
              + label
              + "\" is not a label key, e.g. nvidia.com/gpu.product (optional DNS prefix and '/',"
              + " then letters, digits, '-', '_', '.')");
    }
    Map<String, PriorityMapping> classes = priorityClasses(env.string(PRIORITY_CLASSES, null));
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
    return new SchedulingSettings(gres, label, classes, partition, killWait, margin);
  }

  private static long wholeSeconds(String name, Duration d) {
    if (d.toMillis() % 1000 != 0) {
      throw new ConfigException(
          name + "=" + d.toMillis() + "ms is not whole seconds (Slurm counts KillWait in seconds)");
    }
    return d.toSeconds();
  }

  /**
   * {@code <resource>[@<model>]=<gres>[:<type>]} entries separated by {@code ;}; unset means the
   * default. An entry's key becomes {@code <resource>} or {@code <resource>=<model>}.
   */
  static Map<String, String> gres(String v, Map<String, String> def) {
    if (v == null) {
      return def;
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (String entry : v.split(";", -1)) {
      String e = entry.trim();
      if (e.isEmpty()) {
        continue;
      }
      String hint =
          " (expected <resource>[@<gpu-model>]=<gres>[:<type>] entries separated by ';', e.g."
              + " nvidia.com/gpu=gpu;nvidia.com/gpu@A100=gpu:a100)";
      int eq = e.indexOf('=');
      if (eq < 0 || eq != e.lastIndexOf('=')) {
        throw new ConfigException(GRES + ": entry \"" + e + "\" is not key=value" + hint);
      }
      String key = e.substring(0, eq).trim();
      String value = e.substring(eq + 1).trim();
      String resource = key;
      String model = null;
      int at = key.indexOf('@');
      if (at >= 0) {
        resource = key.substring(0, at).trim();
        model = key.substring(at + 1).trim();
        if (!LABEL_VALUE.matcher(model).matches()) {
          throw new ConfigException(
              GRES + ": entry \"" + e + "\": GPU model \"" + model + "\" is not a label value");
        }
      }
      if (!RESOURCE.matcher(resource).matches()) {
        throw new ConfigException(
            GRES
                + ": entry \""
                + e
                + "\": \""
                + resource
                + "\" is not an extended resource name like nvidia.com/gpu"
                + hint);
      }
      String[] parts = value.split(":", -1);
      if (parts.length > 2
          || !SLURM_NAME.matcher(parts[0]).matches()
          || (parts.length == 2 && !SLURM_NAME.matcher(parts[1]).matches())) {
        throw new ConfigException(
            GRES
                + ": entry \""
                + e
                + "\": \""
                + value
                + "\" is not a GRES name with an optional type, like gpu or gpu:a100 (no count:"
                + " the pod's request is the count)");
      }
      String k = model == null ? resource : resource + "=" + model;
      if (out.put(k, value) != null) {
        throw new ConfigException(GRES + ": \"" + key + "\" appears twice");
      }
    }
    return out;
  }

  /**
   * {@code <class>=<setting>[,<setting>]} entries separated by {@code ;}, a setting being {@code
   * qos:<name>} or {@code nice:<integer>}.
   */
  static Map<String, PriorityMapping> priorityClasses(String v) {
    Map<String, PriorityMapping> out = new LinkedHashMap<>();
    if (v == null) {
      return out;
    }
    String hint =
        " (expected <PriorityClass>=qos:<name>[,nice:<n>] entries separated by ';', e.g."
            + " high=qos:high;batch=qos:low,nice:100)";
    for (String entry : v.split(";", -1)) {
      String e = entry.trim();
      if (e.isEmpty()) {
        continue;
      }
      int eq = e.indexOf('=');
      if (eq < 0 || eq != e.lastIndexOf('=')) {
        throw new ConfigException(
            PRIORITY_CLASSES + ": entry \"" + e + "\" is not key=value" + hint);
      }
      String name = e.substring(0, eq).trim();
      if (!PRIORITY_CLASS.matcher(name).matches() || name.length() > 253) {
        throw new ConfigException(
            PRIORITY_CLASSES + ": \"" + name + "\" is not a PriorityClass name" + hint);
      }
      String qos = null;
      Integer nice = null;
      for (String setting : e.substring(eq + 1).split(",", -1)) {
        String s = setting.trim();
        int colon = s.indexOf(':');
        String k = colon < 0 ? s : s.substring(0, colon).trim();
        String val = colon < 0 ? "" : s.substring(colon + 1).trim();
        if (k.equals("qos") && qos == null && SLURM_NAME.matcher(val).matches()) {
          qos = val;
        } else if (k.equals("nice") && nice == null) {
          nice = nice(name, val);
        } else {
          throw new ConfigException(
              PRIORITY_CLASSES
                  + ": \""
                  + name
                  + "\": \""
                  + s
                  + "\" is not qos:<Slurm QOS name> or nice:<integer>, each at most once"
                  + hint);
        }
      }
      if (out.put(name, new PriorityMapping(qos, nice)) != null) {
        throw new ConfigException(PRIORITY_CLASSES + ": \"" + name + "\" appears twice");
      }
    }
    return out;
  }

  private static Integer nice(String name, String v) {
    try {
      long n = Long.parseLong(v);
      if (Math.abs(n) > MAX_NICE) {
        throw new NumberFormatException();
      }
      return (int) n;
    } catch (NumberFormatException e) {
      throw new ConfigException(
          PRIORITY_CLASSES
              + ": \""
              + name
              + "\": nice \""
              + v
              + "\" is not a whole number from -"
              + MAX_NICE
              + " to "
              + MAX_NICE);
    }
  }
}
