package dev.tandem.workflows.nodeset;

import dev.tandem.workflows.model.NodeSetSpecView;
import dev.tandem.workflows.model.UpdateStrategy;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks a NodeSet spec before the workflow acts on it. The CRD schema refuses what it can; this
 * catches the rest (and everything, on an API server that does not validate). Messages name the
 * field and say what a valid value looks like, because they end up in the InvalidSpec condition.
 */
public final class NodeSetSpecValidator {
  private NodeSetSpecValidator() {}

  /**
   * The workflow's own bound on {@code spec.replicas}. Kept as it was when workflows were recorded
   * with it: the tighter {@link #MAX_NODES} is enforced before a spec reaches a workflow.
   */
  public static final int MAX_REPLICAS = 10_000;

  /**
   * The most nodes one NodeSet may have. A NodeSet workflow carries its nodes across
   * continue-as-new in one payload (about 450 bytes a node), which must stay well inside Temporal's
   * 2 MiB payload limit: at 2,000 nodes it is about 0.9 MiB ({@code NodeSetStateSizeTest}). The CRD
   * ({@code maximum}) and the spec converter refuse more; a larger fleet is several NodeSets
   * (docs/nodeset.md).
   */
  public static final int MAX_NODES = 2_000;

  private static final Pattern PERCENT = Pattern.compile("^(\\d{1,3})%$");
  private static final Pattern COUNT = Pattern.compile("^\\d{1,6}$");

  /** Problems with the spec; empty when it is valid. */
  public static List<String> validate(NodeSetSpecView spec) {
    List<String> p = new ArrayList<>();
    if (spec == null) {
      p.add("spec is missing");
      return p;
    }
    p.addAll(spec.problems());
    // A field the converter already reported is not reported again in other words: "replicas is
    // required" after "replicas: "three" is text; write a whole number" would mislead. Only the
    // message
    // changes; whether the spec is valid does not.
    Integer r = spec.replicas();
    if (r == null) {
      if (!reported(spec, "spec.replicas")) {
        p.add("spec.replicas is required (a number >= 0)");
      }
    } else if (r < 0 || r > MAX_REPLICAS) {
      p.add("spec.replicas must be between 0 and " + MAX_REPLICAS + ", got " + r);
    }
    if ((spec.template() == null
            || spec.template().revision() == null
            || spec.template().revision().isBlank())
        && !reported(spec, "spec.template")) {
      p.add("spec.template is required (a pod template with the slurmd container)");
    }
    UpdateStrategy u = spec.updateStrategy();
    if (!UpdateStrategy.ROLLING_UPDATE.equals(u.type())
        && !UpdateStrategy.ON_DELETE.equals(u.type())) {
      p.add("spec.updateStrategy.type must be RollingUpdate or OnDelete, got \"" + u.type() + "\"");
    } else if (!u.onDelete()) {
      String err = maxUnavailableProblem(u.maxUnavailable());
      if (err != null) {
        p.add(err);
      }
      p.addAll(topologyProblems(u));
    } else if (u.topologyKey() != null || u.domainOrder() != null) {
      p.add("spec.updateStrategy.rollingUpdate is only allowed with type RollingUpdate");
    }
    p.addAll(AutoscalingRules.problems(spec.autoscaling()));
    return p;
  }

  /**
   * A Kubernetes label key: an optional DNS-subdomain prefix and {@code /}, then a name of at most
   * 63 characters (letters, digits, {@code - _ .}, alphanumeric at both ends).
   */
  static final Pattern LABEL_KEY =
      Pattern.compile(
          "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
              + "[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$");

  private static List<String> topologyProblems(UpdateStrategy u) {
    List<String> p = new ArrayList<>();
    String field = "spec.updateStrategy.rollingUpdate.";
    String key = u.topologyKey();
    if (key != null
        && (!LABEL_KEY.matcher(key).matches()
            || key.length() > 316
            || (key.contains("/") && key.indexOf('/') > 253))) {
      p.add(
          field
              + "topologyKey: \""
              + key
              + "\" is not a node label key like topology.tandem.dev/block (optional DNS prefix"
              + " and '/', then letters, digits, '-', '_', '.')");
    }
    String order = u.domainOrder();
    if (order != null
        && !UpdateStrategy.IDLE_FIRST.equals(order)
        && !UpdateStrategy.BY_NAME.equals(order)) {
      p.add(field + "domainOrder must be idleFirst or name, got \"" + order + "\"");
    } else if (order != null && key == null) {
      p.add(field + "domainOrder needs topologyKey, the node label naming the domain");
    }
    return p;
  }

  private static boolean reported(NodeSetSpecView spec, String field) {
    return spec.problems().stream()
        .anyMatch(x -> x.startsWith(field + ":") || x.startsWith(field + "."));
  }

  private static String maxUnavailableProblem(String v) {
    String field = "spec.updateStrategy.rollingUpdate.maxUnavailable";
    if (v == null || v.isBlank()) {
      return null; // defaults to 1
    }
    String t = v.trim();
    Matcher m = PERCENT.matcher(t);
    if (m.matches()) {
      int pct = Integer.parseInt(m.group(1));
      return pct >= 1 && pct <= 100 ? null : field + " must be between 1% and 100%, got " + t;
    }
    if (COUNT.matcher(t).matches()) {
      return Integer.parseInt(t) >= 1 ? null : field + " must be at least 1, got " + t;
    }
    return field + " must be a number like 1 or a percentage like 25%, got \"" + t + "\"";
  }

  /**
   * How many nodes a rolling update may take out of service at once: a count, or a percentage of
   * replicas rounded down; at least 1 so that an update always makes progress.
   */
  public static int resolveMaxUnavailable(String v, int replicas) {
    if (v == null || v.isBlank()) {
      return 1;
    }
    String t = v.trim();
    Matcher m = PERCENT.matcher(t);
    if (m.matches()) {
      return Math.max(1, replicas * Integer.parseInt(m.group(1)) / 100);
    }
    return Math.max(1, Integer.parseInt(t));
  }
}
