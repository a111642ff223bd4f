package dev.tandem.workflows.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.workflows.remediation.RemediationPolicy;
import java.util.List;

/**
 * A NodeSet's spec as the workflow sees it: plain data converted by the watcher from the custom
 * resource. The workflow validates it ({@code NodeSetSpecValidator}) before acting; an invalid spec
 * is reported on the status and the last valid spec stays in force.
 *
 * @param generation {@code metadata.generation}, reported back as observedGeneration
 * @param uid the custom resource's uid (owner of the pods)
 * @param replicas desired number of nodes (null if missing)
 * @param template the pod template revision (null if it could not be read)
 * @param updateStrategy how template changes roll out
 * @param updateDrain drain policy for updates
 * @param scaleDownDrain drain policy for scale-down and deletion
 * @param problems problems the watcher already found while converting (shown as InvalidSpec)
 * @param rejected why a {@code specChanged} payload is unusable (see {@link Payloads}), or null:
 *     unlike {@code problems} this says nothing about the NodeSet, only about the signal
 * @param remediation {@code spec.remediation} with defaults filled in; {@link
 *     RemediationPolicy#disabled()} when the NodeSet has none (null in older payloads means that)
 * @param autoscaling {@code spec.autoscaling}, or null: {@code spec.replicas} is set by hand (or by
 *     an autoscaler outside Tandem)
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record NodeSetSpecView(
    long generation,
    String uid,
    Integer replicas,
    PodTemplate template,
    UpdateStrategy updateStrategy,
    DrainPolicy updateDrain,
    DrainPolicy scaleDownDrain,
    List<String> problems,
    @JsonInclude(JsonInclude.Include.NON_NULL) String rejected,
    @JsonInclude(JsonInclude.Include.NON_NULL) RemediationPolicy remediation,
    @JsonInclude(JsonInclude.Include.NON_NULL) Autoscaling autoscaling)
    implements Lenient {
  public NodeSetSpecView(
      long generation,
      String uid,
      Integer replicas,
      PodTemplate template,
      UpdateStrategy updateStrategy,
      DrainPolicy updateDrain,
      DrainPolicy scaleDownDrain,
      List<String> problems,
      String rejected,
      RemediationPolicy remediation) {
    this(
        generation,
        uid,
        replicas,
        template,
        updateStrategy,
        updateDrain,
        scaleDownDrain,
        problems,
        rejected,
        remediation,
        null);
  }

  public NodeSetSpecView(
      long generation,
      String uid,
      Integer replicas,
      PodTemplate template,
      UpdateStrategy updateStrategy,
      DrainPolicy updateDrain,
      DrainPolicy scaleDownDrain,
      List<String> problems,
      String rejected) {
    this(
        generation,
        uid,
        replicas,
        template,
        updateStrategy,
        updateDrain,
        scaleDownDrain,
        problems,
        rejected,
        null);
  }

  public NodeSetSpecView(
      long generation,
      String uid,
      Integer replicas,
      PodTemplate template,
      UpdateStrategy updateStrategy,
      DrainPolicy updateDrain,
      DrainPolicy scaleDownDrain,
      List<String> problems) {
    this(
        generation,
        uid,
        replicas,
        template,
        updateStrategy,
        updateDrain,
        scaleDownDrain,
        problems,
        null);
  }

  /** Accepts any JSON; see {@link Payloads}. */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static NodeSetSpecView fromJson(JsonNode n) {
    return Payloads.read(
        n,
        NodeSetSpecView.class,
        why ->
            new NodeSetSpecView(0, null, null, null, null, null, null, List.of(), why, null, null));
  }

  public NodeSetSpecView {
    problems = problems == null ? List.of() : List.copyOf(problems);
    updateStrategy = updateStrategy == null ? UpdateStrategy.rolling("1") : updateStrategy;
    updateDrain = updateDrain == null ? DrainPolicy.waitForever() : updateDrain;
    scaleDownDrain = scaleDownDrain == null ? DrainPolicy.waitForever() : scaleDownDrain;
  }

  /** The remediation policy; disabled when the NodeSet has no {@code spec.remediation}. */
  public RemediationPolicy remediationPolicy() {
    return remediation == null ? RemediationPolicy.disabled() : remediation;
  }
}
