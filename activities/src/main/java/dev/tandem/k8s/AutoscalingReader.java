package dev.tandem.k8s;

import static dev.tandem.k8s.SpecText.member;
import static dev.tandem.k8s.SpecText.quote;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.workflows.model.Autoscaling;
import dev.tandem.workflows.nodeset.AutoscalingRules;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Reads {@code spec.autoscaling} into an {@link Autoscaling}, checking again everything the CRD
 * schema says ({@code AutoscalingSpec}: an API server may ignore its CEL rule, and a NodeSet stored
 * before the field existed was never checked against it), plus a zero {@code idleTime}, which the
 * pattern lets through. Each violation is one problem; any problem gives null with the problems, so
 * the NodeSet shows InvalidSpec and its last valid spec stays in force. The bounds and their
 * messages come from {@link AutoscalingRules}, which the workflow applies to every spec it
 * receives.
 */
final class AutoscalingReader {
  private AutoscalingReader() {}

  static final String PATH = "spec.autoscaling";

  private static final Set<String> FIELDS =
      Set.of("minReplicas", "maxReplicas", "idleTime", "scaleUpDelay");

  /** The block, or null when it is absent or has a problem. */
  static Autoscaling read(JsonNode a, List<String> problems) {
    if (a == null) {
      return null;
    }
    if (!a.isObject()) {
      problems.add(
          PATH
              + ": "
              + quote(a)
              + " is not an object; write e.g. {minReplicas: 0, maxReplicas: 8}");
      return null;
    }
    int before = problems.size();
    SpecText.unknownFields(a, PATH, FIELDS, problems);
    JsonNode minNode = member(a, "minReplicas");
    Integer min = minNode == null ? Integer.valueOf(0) : count(minNode, "minReplicas", 0, problems);
    JsonNode maxNode = member(a, "maxReplicas");
    Integer max = null;
    if (maxNode == null) {
      problems.add(
          PATH
              + ".maxReplicas: missing; set the most nodes the NodeSet may grow to, e.g."
              + " maxReplicas: 8");
    } else {
      max = count(maxNode, "maxReplicas", 1, problems);
    }
    if (min != null && max != null && min > max) {
      problems.add(AutoscalingRules.minAboveMax(min, max));
    }
    long idle = duration(member(a, "idleTime"), "idleTime", problems);
    long delay = duration(member(a, "scaleUpDelay"), "scaleUpDelay", problems);
    if (problems.size() > before) {
      return null;
    }
    return new Autoscaling(
        min,
        max,
        idle < 0 ? Autoscaling.DEFAULT_IDLE_SECONDS : idle,
        delay < 0 ? Autoscaling.DEFAULT_SCALE_UP_DELAY_SECONDS : delay);
  }

  /**
   * A replica bound ({@code least} to the most nodes a NodeSet may have), or null and a problem.
   */
  private static Integer count(JsonNode n, String field, int least, List<String> problems) {
    String path = PATH + "." + field;
    if (n.isTextual()) {
      problems.add(
          path
              + ": "
              + quote(n)
              + " is text; write a whole number without quotes, e.g. "
              + field
              + ": "
              + (least == 0 ? 0 : 8));
      return null;
    }
    if (!n.isIntegralNumber()) {
      problems.add(path + ": " + quote(n) + " is not a whole number; use " + least + " or more");
      return null;
    }
    if (!n.canConvertToLong()) {
      // Beyond a long either way: the rules' messages for it, with the number as written.
      problems.add(
          path
              + ": "
              + (n.bigIntegerValue().signum() < 0
                  ? quote(n) + " is negative; use " + least + " or more"
                  : AutoscalingRules.tooMany(quote(n))));
      return null;
    }
    String bad = AutoscalingRules.replicaBoundProblem(n.asLong(), least);
    if (bad != null) {
      problems.add(path + ": " + bad);
      return null;
    }
    return n.asInt();
  }

  /**
   * Seconds, or -1 when absent (the default applies) or with a problem: not a duration, or a zero
   * {@code idleTime} ({@link AutoscalingRules#problems} says why).
   */
  private static long duration(JsonNode d, String field, List<String> problems) {
    String path = PATH + "." + field;
    if (d == null) {
      return -1;
    }
    OptionalLong s = d.isTextual() ? Durations.parseSeconds(d.asText()) : OptionalLong.empty();
    if (s.isEmpty()) {
      problems.add(
          path + ": " + quote(d) + " is not a duration like 30s, 10m or 1h (units s, m, h, d)");
      return -1;
    }
    if (s.getAsLong() == 0 && field.equals("idleTime")) {
      problems.add(path + ": " + quote(d) + " " + AutoscalingRules.IDLE_ZERO);
      return -1;
    }
    return s.getAsLong();
  }
}
