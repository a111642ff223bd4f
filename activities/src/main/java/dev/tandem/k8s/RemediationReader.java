package dev.tandem.k8s;

import static dev.tandem.k8s.SpecText.member;
import static dev.tandem.k8s.SpecText.quote;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.workflows.model.DrainPolicy;
import dev.tandem.workflows.remediation.HealthCheck;
import dev.tandem.workflows.remediation.LadderStep;
import dev.tandem.workflows.remediation.RemediationAction;
import dev.tandem.workflows.remediation.RemediationBudget;
import dev.tandem.workflows.remediation.RemediationPolicy;
import dev.tandem.workflows.remediation.ReplaceMode;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Reads {@code spec.remediation} into a {@link RemediationPolicy}, checking what the CRD schema
 * says and what it cannot (regular expressions compile, each action at most once, a condition is
 * not Ready). Absent: {@link RemediationPolicy#disabled()}; {@code {}}: {@link
 * RemediationPolicy#defaults()}. Any problem also gives a disabled policy: an automatic action on a
 * node must never follow a policy that was not what its author meant (fail closed); the problems
 * show on the NodeSet as InvalidSpec like every other spec error.
 */
final class RemediationReader {
  private RemediationReader() {}

  static final String PATH = "spec.remediation";

  private static final Set<String> FIELDS =
      Set.of(
          "enabled",
          "notReadyFor",
          "conditions",
          "slurmReasons",
          "steps",
          "jobs",
          "recheckEvery",
          "replace",
          "budget",
          "healthCheck");

  /** A label key or condition type: optional DNS-subdomain prefix and '/', then a name. */
  static final Pattern QUALIFIED_NAME =
      Pattern.compile(
          "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
              + "[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$");

  static RemediationPolicy read(JsonNode r, List<String> problems) {
    if (r == null) {
      return RemediationPolicy.disabled();
    }
    if (!r.isObject()) {
      problems.add(PATH + ": " + quote(r) + " is not an object; write {} for every default");
      return RemediationPolicy.disabled();
    }
    int before = problems.size();
    SpecText.unknownFields(r, PATH, FIELDS, problems);
    boolean enabled = enabled(member(r, "enabled"), problems);
    long notReady = duration(member(r, "notReadyFor"), PATH + ".notReadyFor", problems);
    List<String> conditions = conditions(member(r, "conditions"), problems);
    List<String> reasons = reasons(member(r, "slurmReasons"), problems);
    List<LadderStep> steps = RemediationSteps.read(member(r, "steps"), PATH + ".steps", problems);
    DrainPolicy jobs = RemediationBlocks.jobs(member(r, "jobs"), problems);
    long recheck = duration(member(r, "recheckEvery"), PATH + ".recheckEvery", problems);
    ReplaceMode replace = RemediationBlocks.replace(member(r, "replace"), problems);
    RemediationBudget budget = RemediationBlocks.budget(member(r, "budget"), problems);
    HealthCheck check = RemediationBlocks.healthCheck(member(r, "healthCheck"), problems);
    if (problems.size() > before) {
      return RemediationPolicy.disabled();
    }
    return new RemediationPolicy(
        enabled, notReady, conditions, reasons, steps, jobs, recheck, replace, budget, check);
  }

  private static boolean enabled(JsonNode e, List<String> problems) {
    if (e == null) {
      return true;
    }
    if (!e.isBoolean()) {
      problems.add(PATH + ".enabled: " + quote(e) + " must be true or false");
      return false;
    }
    return e.asBoolean();
  }

  /** Seconds, or 0 (the policy's default) when absent; a zero or malformed one is a problem. */
  static long duration(JsonNode d, String path, List<String> problems) {
    if (d == null) {
      return 0;
    }
    OptionalLong s = d.isTextual() ? Durations.parseSeconds(d.asText()) : OptionalLong.empty();
    if (s.isEmpty()) {
      problems.add(path + ": " + quote(d) + " is not a duration like 30s, 5m or 2h");
      return 0;
    }
    if (s.getAsLong() == 0) {
      problems.add(path + ": " + quote(d) + " is zero; use at least 1s, or leave it unset");
      return 0;
    }
    return s.getAsLong();
  }

  private static List<String> conditions(JsonNode c, List<String> problems) {
    String path = PATH + ".conditions";
    List<String> out = strings(c, path, problems);
    if (out == null) {
      return null;
    }
    List<String> ok = new ArrayList<>();
    for (int i = 0; i < out.size(); i++) {
      String t = out.get(i);
      if (t == null || !QUALIFIED_NAME.matcher(t).matches()) {
        problems.add(path + "[" + i + "]: " + quoteText(t) + " is not a node condition type");
      } else if (t.equals("Ready")) {
        problems.add(
            path + "[" + i + "]: Ready is True on a healthy node; use notReadyFor for NotReady");
      } else if (ok.contains(t)) {
        problems.add(path + "[" + i + "]: " + t + " is listed twice");
      } else {
        ok.add(t);
      }
    }
    return ok;
  }

  private static List<String> reasons(JsonNode c, List<String> problems) {
    String path = PATH + ".slurmReasons";
    List<String> out = strings(c, path, problems);
    if (out == null) {
      return null;
    }
    for (int i = 0; i < out.size(); i++) {
      String p = out.get(i);
      if (p == null || p.isEmpty()) {
        problems.add(path + "[" + i + "]: an empty pattern matches every reason; remove it");
        continue;
      }
      try {
        Pattern.compile(p, Pattern.CASE_INSENSITIVE);
      } catch (PatternSyntaxException e) {
        problems.add(
            path
                + "["
                + i
                + "]: "
                + quoteText(p)
                + " is not a regular expression: "
                + e.getDescription());
      }
    }
    return out;
  }

  /** The texts of a list (null entries for non-texts, reported), or null when absent/invalid. */
  private static List<String> strings(JsonNode list, String path, List<String> problems) {
    if (list == null) {
      return null;
    }
    if (!list.isArray()) {
      problems.add(path + ": " + quote(list) + " must be a list of strings");
      return null;
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i < list.size(); i++) {
      JsonNode v = list.get(i);
      if (!v.isTextual()) {
        problems.add(path + "[" + i + "]: " + quote(v) + " is not a string");
        out.add(null);
      } else {
        out.add(v.asText());
      }
    }
    return out;
  }

  private static String quoteText(String s) {
    return s == null ? "null" : quote(com.fasterxml.jackson.databind.node.TextNode.valueOf(s));
  }

  /** The actions in the order of {@link RemediationAction}, for messages. */
  static String actionLabels() {
    List<String> l = new ArrayList<>();
    for (RemediationAction a : EnumSet.allOf(RemediationAction.class)) {
      l.add(a.label());
    }
    return String.join(", ", l);
  }
}
