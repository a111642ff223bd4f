package dev.tandem.workflows.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Payload of the public node signals {@code drain}, {@code undrain} and {@code delete}, e.g. {@code
 * {"owner":"manual","reason":"GPU 3 throws Xid 79"}}.
 *
 * <p>{@code owner} says who holds the drain and is the drain cause ({@code manual}, {@code
 * k8s-cordon}, {@code k8s-unhealthy}, {@code remediation}, ...); an {@code undrain} releases only
 * the drain of the same owner, so an uncordon never lifts a manual drain.
 *
 * <p>Signals may come from the Temporal CLI with any JSON at all. Reading therefore never fails:
 * whatever arrives becomes a command, and a malformed one says why ({@code rejected}), which the
 * workflow records in the node's timeline ({@code tandem history}) instead of acting on it ({@code
 * SignalInbox}).
 *
 * @param owner who holds the drain; one of {@link DrainCause}'s labels
 * @param reason free text shown in Slurm's reason
 * @param policy drain timeout policy for {@code delete}, or null for the NodeSet's
 * @param rejected why the payload is unusable, or null
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record NodeCommand(
    String owner,
    String reason,
    DrainPolicy policy,
    @JsonInclude(JsonInclude.Include.NON_NULL) String rejected)
    implements Lenient {

  public static NodeCommand of(String owner, String reason) {
    return new NodeCommand(owner, reason, null, null);
  }

  public static NodeCommand of(DrainCause cause, String reason) {
    return new NodeCommand(cause.label(), reason, null, null);
  }

  public NodeCommand withPolicy(DrainPolicy p) {
    return new NodeCommand(owner, reason, p, rejected);
  }

  /** The owner as a drain cause, if it is one. */
  public java.util.Optional<DrainCause> cause() {
    return DrainCause.fromLabel(owner);
  }

  /** Accepts any JSON; see the class comment. */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static NodeCommand fromJson(JsonNode n) {
    if (n == null || !n.isObject()) {
      return new NodeCommand(
          null,
          null,
          null,
          "payload must be a JSON object like {\"owner\":\"manual\",\"reason\":\"...\"}, got: "
              + abbreviate(String.valueOf(n)));
    }
    List<String> problems = new ArrayList<>();
    String owner = text(n, "owner");
    // Cleaned here, where every drain/undrain/delete enters: one line, bounded, so that neither
    // Slurm's reason nor the node's timeline (tandem history) gets a newline or a 256 KB string.
    String reason = DrainReason.clean(text(n, "reason"));
    if (owner == null || owner.isBlank()) {
      problems.add("\"owner\" is required (one of " + causes() + ")");
    } else if (DrainCause.fromLabel(owner).isEmpty()) {
      problems.add("\"owner\" must be one of " + causes() + ", got \"" + abbreviate(owner) + "\"");
    }
    DrainPolicy policy = null;
    JsonNode p = n.get("policy");
    if (p != null && !p.isNull()) {
      if (!p.isObject()) {
        problems.add("\"policy\" must be an object {\"timeoutSeconds\":N,\"onTimeout\":\"WAIT\"}");
      } else {
        JsonNode t = p.get("timeoutSeconds");
        long timeout = 0;
        if (t != null && !t.isNull()) {
          if (!t.canConvertToLong() || t.asLong() < 0) {
            problems.add("\"policy.timeoutSeconds\" must be a non-negative number");
          } else {
            timeout = t.asLong();
          }
        }
        TimeoutAction action = TimeoutAction.WAIT;
        String a = text(p, "onTimeout");
        if (a != null) {
          try {
            action = TimeoutAction.valueOf(a.trim().toUpperCase(Locale.ROOT));
          } catch (IllegalArgumentException e) {
            problems.add("\"policy.onTimeout\" must be WAIT or FORCE");
          }
        }
        policy = new DrainPolicy(timeout, action);
      }
    }
    return new NodeCommand(
        owner == null ? null : owner.trim(),
        reason,
        policy,
        problems.isEmpty() ? null : String.join("; ", problems));
  }

  private static String text(JsonNode n, String field) {
    JsonNode v = n.get(field);
    return v == null || v.isNull() ? null : v.isValueNode() ? v.asText() : v.toString();
  }

  private static String causes() {
    StringBuilder b = new StringBuilder();
    for (DrainCause c : DrainCause.values()) {
      b.append(b.length() == 0 ? "" : ", ").append(c.label());
    }
    return b.toString();
  }

  private static String abbreviate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 77) + "...";
  }
}
