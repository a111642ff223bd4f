package dev.tandem.workflows.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.Set;

/**
 * What Slurm says about one node, reduced to what lifecycle decisions need.
 *
 * @param name Slurm node name
 * @param known Slurm has a record of this node (false: not found)
 * @param state lower-case base state ({@code idle}, {@code allocated}, {@code mixed}, {@code down},
 *     {@code future}, ...)
 * @param flags upper-case flags ({@code DRAIN}, {@code NOT_RESPONDING}, ...)
 * @param reason drain/down reason, or null
 * @param reasonSetBy who set the reason, or null
 * @param slurmdStartTime when the node's slurmd last started, or null
 * @param observedAt when this was read (activity or watcher clock)
 * @param rejected why a {@code slurmObserved} payload is unusable (see {@link Payloads}), or null
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record SlurmNodeView(
    String name,
    boolean known,
    String state,
    Set<String> flags,
    String reason,
    String reasonSetBy,
    Instant slurmdStartTime,
    Instant observedAt,
    @JsonInclude(JsonInclude.Include.NON_NULL) String rejected)
    implements Lenient {

  public SlurmNodeView {
    flags = flags == null ? Set.of() : Set.copyOf(flags);
  }

  public SlurmNodeView(
      String name,
      boolean known,
      String state,
      Set<String> flags,
      String reason,
      String reasonSetBy,
      Instant slurmdStartTime,
      Instant observedAt) {
    this(name, known, state, flags, reason, reasonSetBy, slurmdStartTime, observedAt, null);
  }

  /** Accepts any JSON; see {@link Payloads}. */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static SlurmNodeView fromJson(JsonNode n) {
    return Payloads.read(
        n,
        SlurmNodeView.class,
        why -> new SlurmNodeView(null, false, "unknown", Set.of(), null, null, null, null, why));
  }

  public static SlurmNodeView unknown(String name, Instant observedAt) {
    return new SlurmNodeView(name, false, "unknown", Set.of(), null, null, null, observedAt);
  }

  public boolean drainFlag() {
    return flags.contains("DRAIN");
  }

  public boolean responding() {
    return known && !flags.contains("NOT_RESPONDING") && !"future".equals(state);
  }

  /**
   * Slurm holds a record for this node whose state can be set, responding or not. A drain must not
   * wait for {@link #responding()}: Slurm 22.05 shows a node NOT_RESPONDING for about a second
   * after every UNDRAIN/RESUME (it pings the slurmd again), and a dead slurmd is exactly the node
   * that must take no new jobs.
   */
  public boolean drainable() {
    return known && !"future".equals(state);
  }

  public boolean down() {
    return "down".equals(state) || "error".equals(state);
  }

  /** A drain (or down) reason set by someone other than Tandem: never removed by automation. */
  public boolean adminReason() {
    return reason != null && !reason.isBlank() && !DrainReason.ownedByTandem(reason);
  }

  /**
   * The slurmd of a pod created at {@code podCreatedAt} has registered: Slurm knows the node, it
   * responds, and its slurmd started after the pod was created (not the previous pod's slurmd).
   * Slurm health (an administrator's DOWN or DRAIN) is separate from registration.
   */
  public boolean registeredSince(Instant podCreatedAt) {
    if (!responding()) {
      return false;
    }
    if (podCreatedAt == null || slurmdStartTime == null) {
      return podCreatedAt == null;
    }
    // Pod timestamps have one-second resolution; allow for that and a little clock skew.
    return !slurmdStartTime.isBefore(podCreatedAt.minusSeconds(2));
  }

  /** A short state text for tables: {@code idle}, {@code allocated+DRAIN}, ... */
  public String summary() {
    if (!known) {
      return "unknown";
    }
    StringBuilder b = new StringBuilder(state == null ? "?" : state);
    flags.stream().sorted().forEach(f -> b.append('+').append(f));
    return b.toString();
  }
}
