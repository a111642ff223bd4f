package dev.tandem.k8s;

import static dev.tandem.k8s.SpecText.member;
import static dev.tandem.k8s.SpecText.quote;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.workflows.remediation.LadderStep;
import dev.tandem.workflows.remediation.RemediationAction;
import dev.tandem.workflows.remediation.RemediationPolicy;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/** Reads {@code spec.remediation.steps}: the ladder's rungs, each action at most once. */
final class RemediationSteps {
  private RemediationSteps() {}

  /** The rungs, or null (the policy's default ladder) when absent or invalid. */
  static List<LadderStep> read(JsonNode list, String path, List<String> problems) {
    if (list == null) {
      return null;
    }
    if (!list.isArray()) {
      problems.add(path + ": " + quote(list) + " must be a list of {action, timeout}");
      return null;
    }
    if (list.isEmpty()) {
      problems.add(
          path
              + ": empty; list at least one action ("
              + RemediationReader.actionLabels()
              + "), or leave steps unset for the default ladder");
      return null;
    }
    List<LadderStep> out = new ArrayList<>();
    EnumSet<RemediationAction> seen = EnumSet.noneOf(RemediationAction.class);
    for (int i = 0; i < list.size(); i++) {
      String at = path + "[" + i + "]";
      JsonNode s = list.get(i);
      if (!s.isObject()) {
        problems.add(at + ": " + quote(s) + " is not an object like {action: Reboot}");
        continue;
      }
      SpecText.unknownFields(s, at, Set.of("action", "timeout"), problems);
      RemediationAction action = action(member(s, "action"), at + ".action", problems);
      long timeout = RemediationReader.duration(member(s, "timeout"), at + ".timeout", problems);
      if (action == null) {
        continue;
      }
      if (!seen.add(action)) {
        problems.add(at + ".action: " + action.label() + " is listed twice; each action once");
        continue;
      }
      out.add(new LadderStep(action, timeout > 0 ? timeout : defaultTimeout(action)));
    }
    return out;
  }

  private static RemediationAction action(JsonNode a, String path, List<String> problems) {
    if (a == null) {
      problems.add(path + ": missing; one of " + RemediationReader.actionLabels());
      return null;
    }
    for (RemediationAction r : RemediationAction.values()) {
      if (a.isTextual() && r.label().equals(a.asText())) {
        return r;
      }
    }
    problems.add(
        path + ": " + quote(a) + " is not an action; one of " + RemediationReader.actionLabels());
    return null;
  }

  /** The default ladder's timeout for this action. */
  static long defaultTimeout(RemediationAction action) {
    for (LadderStep s : RemediationPolicy.DEFAULT_STEPS) {
      if (s.action() == action) {
        return s.timeoutSeconds();
      }
    }
    throw new IllegalStateException("no default timeout for " + action);
  }
}
