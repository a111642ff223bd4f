package dev.tandem.workflows.remediation;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.workflows.model.DrainReason;
import dev.tandem.workflows.model.Lenient;

/**
 * Payload of the {@code trigger} signal to {@code remediation/<k8s-node>}, e.g. {@code
 * {"kind":"Operator","detail":"GPU 3 throws Xid 79","source":"alice"}}.
 *
 * <p>Like every signal payload it never fails to deserialize: anything unusable becomes a trigger
 * that says why ({@code rejected}), which the workflow records in its timeline and does not act on.
 *
 * @param kind what kind of trouble (one of {@link TriggerKind}'s labels)
 * @param detail what was seen, one line: {@code GpuUnhealthy=True: Xid 79 on GPU 3}, a Slurm reason
 * @param source who sent it: {@code node-watcher}, {@code slurm-watcher}, {@code tandem-cli}, a
 *     user
 * @param rejected why the payload is unusable, or null
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record RemediationTrigger(
    TriggerKind kind,
    String detail,
    String source,
    @JsonInclude(JsonInclude.Include.NON_NULL) String rejected)
    implements Lenient {

  public static RemediationTrigger of(TriggerKind kind, String detail, String source) {
    return new RemediationTrigger(kind, DrainReason.clean(detail), source, null);
  }

  public boolean valid() {
    return rejected == null && kind != null;
  }

  /**
   * {@code <Kind>: <detail>}, the cause shown in drains, events and {@code tandem remediations}.
   */
  public String cause() {
    return (kind == null ? "?" : kind.label())
        + (detail == null || detail.isBlank() ? "" : ": " + detail);
  }

  /** Accepts any JSON; see the class comment. */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static RemediationTrigger fromJson(JsonNode n) {
    if (n == null || !n.isObject()) {
      return new RemediationTrigger(
          null,
          null,
          null,
          "payload must be a JSON object like {\"kind\":\"Operator\",\"detail\":\"...\"}, got: "
              + abbreviate(String.valueOf(n)));
    }
    String kind = text(n, "kind");
    TriggerKind k = TriggerKind.parse(kind).orElse(null);
    String rejected =
        kind == null || kind.isBlank()
            ? "\"kind\" is required (one of " + TriggerKind.labels() + ")"
            : k == null
                ? "\"kind\" must be one of "
                    + TriggerKind.labels()
                    + ", got \""
                    + abbreviate(kind)
                    + "\""
                : null;
    return new RemediationTrigger(
        k, DrainReason.clean(text(n, "detail")), DrainReason.clean(text(n, "source")), rejected);
  }

  private static String text(JsonNode n, String field) {
    JsonNode v = n.get(field);
    return v == null || v.isNull() ? null : v.isValueNode() ? v.asText() : v.toString();
  }

  private static String abbreviate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 77) + "...";
  }
}
