package dev.tandem.k8s;

import static dev.tandem.k8s.SpecText.member;
import static dev.tandem.k8s.SpecText.quote;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.k8s.api.DrainSpec;
import dev.tandem.workflows.model.DrainPolicy;
import dev.tandem.workflows.model.TimeoutAction;
import dev.tandem.workflows.remediation.HealthCheck;
import dev.tandem.workflows.remediation.RemediationBudget;
import dev.tandem.workflows.remediation.RemediationPolicy;
import dev.tandem.workflows.remediation.ReplaceMode;
import java.util.List;
import java.util.Set;

/**
 * The object members of {@code spec.remediation}: {@code jobs}, {@code replace}, {@code budget}.
 */
final class RemediationBlocks {
  private RemediationBlocks() {}

  static DrainPolicy jobs(JsonNode j, List<String> problems) {
    String path = RemediationReader.PATH + ".jobs";
    if (j == null) {
      return RemediationPolicy.DEFAULT_JOBS;
    }
    if (!j.isObject()) {
      problems.add(path + ": " + quote(j) + " is not an object");
      return RemediationPolicy.DEFAULT_JOBS;
    }
    SpecText.unknownFields(j, path, Set.of("timeout", "onTimeout"), problems);
    long timeout = RemediationReader.duration(member(j, "timeout"), path + ".timeout", problems);
    TimeoutAction action = RemediationPolicy.DEFAULT_JOBS.onTimeout();
    JsonNode a = member(j, "onTimeout");
    if (a != null) {
      if (a.isTextual() && a.asText().equals(DrainSpec.OnTimeout.Force.name())) {
        action = TimeoutAction.FORCE;
      } else if (a.isTextual() && a.asText().equals(DrainSpec.OnTimeout.Wait.name())) {
        action = TimeoutAction.WAIT;
      } else {
        problems.add(path + ".onTimeout: " + quote(a) + " must be Wait or Force");
      }
    }
    return new DrainPolicy(
        timeout > 0 ? timeout : RemediationPolicy.DEFAULT_JOBS.timeoutSeconds(), action);
  }

  static ReplaceMode replace(JsonNode r, List<String> problems) {
    String path = RemediationReader.PATH + ".replace";
    if (r == null) {
      return null;
    }
    if (!r.isObject()) {
      problems.add(path + ": " + quote(r) + " is not an object");
      return null;
    }
    SpecText.unknownFields(r, path, Set.of("mode"), problems);
    JsonNode m = member(r, "mode");
    if (m == null) {
      return null;
    }
    if (m.isTextual() && m.asText().equals("Mark")) {
      return ReplaceMode.MARK;
    }
    if (m.isTextual() && m.asText().equals("Delete")) {
      return ReplaceMode.DELETE;
    }
    problems.add(path + ".mode: " + quote(m) + " must be Mark or Delete");
    return null;
  }

  static RemediationBudget budget(JsonNode b, List<String> problems) {
    String path = RemediationReader.PATH + ".budget";
    RemediationBudget d = RemediationBudget.defaults();
    if (b == null) {
      return d;
    }
    if (!b.isObject()) {
      problems.add(path + ": " + quote(b) + " is not an object");
      return d;
    }
    SpecText.unknownFields(
        b, path, Set.of("maxPerNodeSet", "domainLabel", "maxPerDomain"), problems);
    int perNodeSet = atLeastOne(member(b, "maxPerNodeSet"), path + ".maxPerNodeSet", problems);
    int perDomain = atLeastOne(member(b, "maxPerDomain"), path + ".maxPerDomain", problems);
    String label = null;
    JsonNode l = member(b, "domainLabel");
    if (l != null) {
      if (!l.isTextual() || !RemediationReader.QUALIFIED_NAME.matcher(l.asText()).matches()) {
        problems.add(
            path + ".domainLabel: " + quote(l) + " is not a label key like example.com/rack");
      } else {
        label = l.asText();
      }
    } else if (member(b, "maxPerDomain") != null) {
      problems.add(path + ".maxPerDomain: needs domainLabel, the node label naming the domain");
    }
    return new RemediationBudget(
        perNodeSet > 0 ? perNodeSet : d.maxPerNodeSet(),
        label,
        perDomain > 0 ? perDomain : d.maxPerDomain());
  }

  private static int atLeastOne(JsonNode n, String path, List<String> problems) {
    if (n == null) {
      return 0;
    }
    if (!n.isIntegralNumber() || !n.canConvertToInt() || n.asInt() < 1) {
      problems.add(path + ": " + quote(n) + " must be a whole number from 1");
      return 0;
    }
    return n.asInt();
  }

  /** Ten minutes: what a GPU burn-in or an NHC run takes, with room to be scheduled. */
  static final long DEFAULT_HEALTH_CHECK_TIMEOUT = 600;

  /** {@code healthCheck}: null when absent; a problem for an empty script or a zero timeout. */
  static HealthCheck healthCheck(JsonNode h, List<String> problems) {
    String path = RemediationReader.PATH + ".healthCheck";
    if (h == null) {
      return null;
    }
    if (!h.isObject()) {
      problems.add(path + ": " + quote(h) + " is not an object");
      return null;
    }
    SpecText.unknownFields(h, path, Set.of("script", "timeout"), problems);
    JsonNode s = member(h, "script");
    String script = s != null && s.isTextual() ? s.asText() : null;
    if (script == null || script.isBlank()) {
      problems.add(
          path
              + ".script: "
              + (s == null ? "missing" : quote(s) + " is empty or not a string")
              + "; give the batch script the node must pass (exit 0), or remove healthCheck");
      return null;
    }
    long timeout = RemediationReader.duration(member(h, "timeout"), path + ".timeout", problems);
    return new HealthCheck(script, timeout > 0 ? timeout : DEFAULT_HEALTH_CHECK_TIMEOUT);
  }
}
