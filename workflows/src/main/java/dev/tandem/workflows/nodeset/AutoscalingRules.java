package dev.tandem.workflows.nodeset;

import dev.tandem.workflows.model.Autoscaling;
import java.util.ArrayList;
import java.util.List;

/**
 * The rules of {@code spec.autoscaling} on the workflow's {@link Autoscaling}: those of the CRD
 * ({@code AutoscalingSpec}) and of the converter ({@code dev.tandem.k8s.AutoscalingReader}), with
 * the converter's messages, which it takes from here. {@link NodeSetSpecValidator} applies them to
 * every spec, because one sent by {@code temporal workflow signal} passed neither.
 */
public final class AutoscalingRules {
  private AutoscalingRules() {}

  /**
   * The longest duration a NodeSet can spell: four parts of 999,999,999 days (the CRD's duration
   * pattern, {@code DrainSpec.DURATION_PATTERN}). A spec sent by signal is held to it too, which
   * also keeps the workflow's {@code seconds * 1000} far from overflowing.
   */
  public static final long MAX_DURATION_SECONDS = 4L * 999_999_999L * 86_400L;

  /**
   * Problems with {@code a}; empty when it is valid or null (not autoscaled; also what the
   * converter sends for a block it found invalid, its problems already in the spec's).
   */
  public static List<String> problems(Autoscaling a) {
    List<String> p = new ArrayList<>();
    if (a == null) {
      return p;
    }
    String f = "spec.autoscaling";
    String min = replicaBoundProblem(a.minReplicas(), 0);
    if (min != null) {
      p.add(f + ".minReplicas: " + min);
    }
    String max = replicaBoundProblem(a.maxReplicas(), 1);
    if (max != null) {
      p.add(f + ".maxReplicas: " + max);
    }
    // Compared only when both are in bounds, as the converter does: "-1 is more than -3" would
    // only repeat what the bounds already said.
    if (min == null && max == null && a.minReplicas() > a.maxReplicas()) {
      p.add(minAboveMax(a.minReplicas(), a.maxReplicas()));
    }
    String idle = "\"" + a.idleSeconds() + "s\"";
    if (a.idleSeconds() < 0) {
      p.add(f + ".idleTime: " + idle + " is negative; use at least 1s");
    } else if (a.idleSeconds() == 0) {
      p.add(f + ".idleTime: " + idle + " " + IDLE_ZERO);
    } else if (a.idleSeconds() > MAX_DURATION_SECONDS) {
      p.add(f + ".idleTime: " + idle + " " + TOO_LONG);
    }
    String delay = "\"" + a.scaleUpDelaySeconds() + "s\"";
    if (a.scaleUpDelaySeconds() < 0) {
      p.add(f + ".scaleUpDelay: " + delay + " is negative; use 0s or more");
    } else if (a.scaleUpDelaySeconds() > MAX_DURATION_SECONDS) {
      p.add(f + ".scaleUpDelay: " + delay + " " + TOO_LONG);
    }
    return p;
  }

  /** Why a zero {@code idleTime} is refused, after its quoted value. */
  public static final String IDLE_ZERO =
      "is zero; use at least 1s, or leave it unset for the default 10m (to keep every node"
          + " however long it idles, set minReplicas to maxReplicas)";

  private static final String TOO_LONG =
      "is longer than a duration can be written (at most 4 parts of 999999999d)";

  /** {@code spec.autoscaling} with minReplicas above maxReplicas. */
  public static String minAboveMax(long min, long max) {
    return "spec.autoscaling: minReplicas "
        + min
        + " is more than maxReplicas "
        + max
        + "; raise maxReplicas or lower minReplicas";
  }

  /**
   * A replica bound ({@code minReplicas} from 0, {@code maxReplicas} from 1) outside {@code least}
   * to {@link NodeSetSpecValidator#MAX_NODES}: what follows its path and ": " in the problem, or
   * null when it is in.
   */
  public static String replicaBoundProblem(long value, int least) {
    if (value < 0) {
      return value + " is negative; use " + least + " or more";
    }
    if (value < least) {
      return value + " is less than " + least + "; use " + least + " or more";
    }
    return value > NodeSetSpecValidator.MAX_NODES ? tooMany(value) : null;
  }

  /**
   * After a replica bound's path and ": ", when it exceeds {@link NodeSetSpecValidator#MAX_NODES}.
   */
  public static String tooMany(Object value) {
    return value
        + " is more than "
        + NodeSetSpecValidator.MAX_NODES
        + ", the most nodes one NodeSet may have; split the fleet into several NodeSets";
  }
}
