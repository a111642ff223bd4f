package dev.tandem.workers;

import static dev.tandem.workers.SchedulingSettings.GRES;
import static dev.tandem.workers.SchedulingSettings.NAMESPACE_ACCOUNTS;
import static dev.tandem.workers.SchedulingSettings.PRIORITY_CLASSES;
import static dev.tandem.workers.SchedulingSettings.SLURM_NAME;

import dev.tandem.workflows.schedule.PriorityMapping;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The two map syntaxes of {@link SchedulingSettings}: {@code ;} between entries, {@code =} between
 * key and value, every part checked so that a typo is a start-up error naming the variable.
 */
final class SchedulingMaps {
  private SchedulingMaps() {}

  /** Extended resource name: {@code <domain>/<name>}, as Kubernetes allows them. */
  private static final Pattern RESOURCE =
      Pattern.compile(
          "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
              + "/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$");

  /** A label value (the GPU model), non-empty. */
  private static final Pattern LABEL_VALUE =
      Pattern.compile("^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$");

  /** A PriorityClass name (DNS subdomain). */
  private static final Pattern PRIORITY_CLASS =
      Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");

  /** Slurm's nice range (slurm.h {@code NICE_OFFSET} minus 3). */
  static final long MAX_NICE = 2147483645L;

  /**
   * {@code <resource>[@<model>]=<gres>[:<type>]} entries separated by {@code ;}; unset means the
   * default. An entry's key becomes {@code <resource>} or {@code <resource>=<model>}.
   */
  static Map<String, String> gres(String v, Map<String, String> def) {
    if (v == null) {
      return def;
    }
    Map<String, String> out = new LinkedHashMap<>();
    String hint =
        " (expected <resource>[@<gpu-model>]=<gres>[:<type>] entries separated by ';', e.g."
            + " nvidia.com/gpu=gpu;nvidia.com/gpu@A100=gpu:a100)";
    for (Entry en : entries(GRES, v, hint)) {
      String e = en.text();
      String key = en.key();
      String value = en.value();
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
    for (Entry en : entries(PRIORITY_CLASSES, v, hint)) {
      String name = en.key();
      if (!PRIORITY_CLASS.matcher(name).matches() || name.length() > 253) {
        throw new ConfigException(
            PRIORITY_CLASSES + ": \"" + name + "\" is not a PriorityClass name" + hint);
      }
      String qos = null;
      Integer nice = null;
      for (String setting : en.value().split(",", -1)) {
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

  /** A Kubernetes namespace name (a DNS label). */
  private static final Pattern NAMESPACE = Pattern.compile("^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$");

  /** {@code <namespace>=<account>} entries separated by {@code ;}. */
  static Map<String, String> namespaceAccounts(String v) {
    Map<String, String> out = new LinkedHashMap<>();
    if (v == null) {
      return out;
    }
    String hint =
        " (expected <namespace>=<Slurm account> entries separated by ';', e.g."
            + " team-a=physics;team-b=ml)";
    for (Entry en : entries(NAMESPACE_ACCOUNTS, v, hint)) {
      String ns = en.key();
      String account = en.value();
      if (!NAMESPACE.matcher(ns).matches()) {
        throw new ConfigException(
            NAMESPACE_ACCOUNTS + ": \"" + ns + "\" is not a namespace name" + hint);
      }
      if (!SLURM_NAME.matcher(account).matches()) {
        throw new ConfigException(
            NAMESPACE_ACCOUNTS + ": \"" + account + "\" is not a Slurm account name" + hint);
      }
      if (out.put(ns, account) != null) {
        throw new ConfigException(NAMESPACE_ACCOUNTS + ": \"" + ns + "\" appears twice");
      }
    }
    return out;
  }

  /** One {@code key=value} entry of a map setting, as written and split (both sides trimmed). */
  private record Entry(String text, String key, String value) {}

  /** The non-empty {@code ;}-separated entries of {@code setting}, each exactly one {@code =}. */
  private static List<Entry> entries(String setting, String v, String hint) {
    List<Entry> out = new ArrayList<>();
    for (String entry : v.split(";", -1)) {
      String e = entry.trim();
      if (e.isEmpty()) {
        continue;
      }
      int eq = e.indexOf('=');
      if (eq < 0 || eq != e.lastIndexOf('=')) {
        throw new ConfigException(setting + ": entry \"" + e + "\" is not key=value" + hint);
      }
      out.add(new Entry(e, e.substring(0, eq).trim(), e.substring(eq + 1).trim()));
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
