package dev.tandem.k8s;

import static dev.tandem.k8s.SpecText.member;
import static dev.tandem.k8s.SpecText.quote;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.k8s.api.NodeSet;
import dev.tandem.workflows.model.Autoscaling;
import dev.tandem.workflows.model.DrainPolicy;
import dev.tandem.workflows.model.NodeSetSpecView;
import dev.tandem.workflows.model.PodTemplate;
import dev.tandem.workflows.model.SlurmSettings;
import dev.tandem.workflows.model.UpdateStrategy;
import dev.tandem.workflows.nodeset.NodeSetSpecValidator;
import dev.tandem.workflows.remediation.RemediationPolicy;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * NodeSet custom resource to {@link NodeSetSpecView}, the plain record the workflows speak.
 *
 * <p>Never throws. Every problem becomes a {@code problems} entry naming the field and what to do,
 * because an invalid NodeSet must reach the workflow (which shows it as InvalidSpec and keeps the
 * last valid spec) rather than break the caller. That is also why a {@link
 * GenericKubernetesResource} or raw JSON is accepted: a typed informer stops on a CR it cannot
 * deserialize, and the API server stores what the schema leaves open (a pod template) unchecked.
 */
public final class NodeSetSpecs {
  private NodeSetSpecs() {}

  /**
   * NodeSet names become pod names {@code <name>-<ordinal>}, which are also host names (DNS labels
   * of at most 63 characters) and Slurm node names. 50 leaves room for any ordinal.
   */
  public static final int MAX_NAME_LENGTH = 50;

  private static final Pattern DNS_LABEL = Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$");
  private static final Set<String> SPEC_FIELDS =
      Set.of(
          "replicas",
          "template",
          "slurm",
          "updateStrategy",
          "drain",
          "scaleDown",
          "remediation",
          "autoscaling");

  public static NodeSetSpecView toView(NodeSet nodeSet) {
    if (nodeSet == null) {
      return broken("the NodeSet is missing");
    }
    try {
      return toView(Json.MAPPER.valueToTree(nodeSet));
    } catch (RuntimeException e) {
      return broken("cannot convert the NodeSet to JSON: " + e.getMessage());
    }
  }

  public static NodeSetSpecView toView(GenericKubernetesResource resource) {
    if (resource == null) {
      return broken("the NodeSet is missing");
    }
    try {
      return toView(Json.MAPPER.valueToTree(resource));
    } catch (RuntimeException e) {
      return broken("cannot convert the NodeSet to JSON: " + e.getMessage());
    }
  }

  public static NodeSetSpecView toView(String json) {
    JsonNode root;
    try {
      root = Json.MAPPER.readTree(json == null ? "" : json);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      return broken("the NodeSet is not valid JSON: " + e.getOriginalMessage());
    }
    return toView(root);
  }

  public static NodeSetSpecView toView(JsonNode root) {
    if (root == null || !root.isObject()) {
      return broken("the NodeSet is not a JSON object");
    }
    try {
      return read(root);
    } catch (RuntimeException e) {
      // A bug here must still not break the watcher: report it where users look.
      return new NodeSetSpecView(
          root.path("metadata").path("generation").asLong(0),
          textOrNull(root.path("metadata").get("uid")),
          null,
          null,
          null,
          null,
          null,
          List.of("internal error while reading the NodeSet (please report): " + e));
    }
  }

  private static NodeSetSpecView read(JsonNode root) {
    List<String> problems = new ArrayList<>();
    JsonNode meta = root.path("metadata");
    long generation = meta.path("generation").asLong(0);
    String uid = textOrNull(meta.get("uid"));
    checkName(member(meta, "name"), problems);

    JsonNode spec = member(root, "spec");
    if (spec == null || !spec.isObject()) {
      problems.add("spec: missing; a NodeSet needs spec.replicas and spec.template");
      return new NodeSetSpecView(generation, uid, null, null, null, null, null, problems);
    }
    SpecText.unknownFields(spec, "spec", SPEC_FIELDS, problems);
    Integer replicas = replicas(member(spec, "replicas"), problems);
    SlurmSettings slurm = SpecReaders.slurm(member(spec, "slurm"), problems);
    JsonNode template = TemplateCheck.check(member(spec, "template"), problems);
    PodTemplate podTemplate =
        template == null
            ? null
            : new PodTemplate(
                Revisions.of(template, slurm), Revisions.canonicalString(template), slurm);
    UpdateStrategy strategy = SpecReaders.updateStrategy(member(spec, "updateStrategy"), problems);
    DrainPolicy updateDrain =
        SpecReaders.drain(member(spec, "drain"), "spec.drain", DrainPolicy.waitForever(), problems);
    // scaleDown falls back to drain: one policy is enough for most NodeSets.
    DrainPolicy scaleDownDrain =
        SpecReaders.drain(member(spec, "scaleDown"), "spec.scaleDown", updateDrain, problems);
    // Absent stays null (the view reads it as disabled): NodeSets without the block keep the
    // specChanged payload they had before remediation existed.
    JsonNode r = member(spec, "remediation");
    RemediationPolicy remediation = r == null ? null : RemediationReader.read(r, problems);
    // Absent: null, replicas are set by hand. Invalid: null too, with problems, so the spec is
    // refused as a whole and the last valid one (with its autoscaling) stays in force.
    Autoscaling autoscaling = AutoscalingReader.read(member(spec, "autoscaling"), problems);
    return new NodeSetSpecView(
        generation,
        uid,
        replicas,
        podTemplate,
        strategy,
        updateDrain,
        scaleDownDrain,
        problems,
        null,
        remediation,
        autoscaling);
  }

  private static Integer replicas(JsonNode r, List<String> problems) {
    if (r == null) {
      problems.add("spec.replicas: missing; set the number of Slurm nodes (0 or more)");
      return null;
    }
    if (r.isTextual()) {
      problems.add(
          "spec.replicas: "
              + quote(r)
              + " is text; write a whole number without quotes, e.g. replicas: 3");
      return null;
    }
    if (!r.isIntegralNumber()) {
      problems.add("spec.replicas: " + quote(r) + " is not a whole number; use 0 or more");
      return null;
    }
    if (r.bigIntegerValue().signum() < 0) {
      problems.add("spec.replicas: " + quote(r) + " is negative; use 0 or more");
      return null;
    }
    if (!r.canConvertToInt() || r.asInt() > NodeSetSpecValidator.MAX_NODES) {
      problems.add(
          "spec.replicas: "
              + quote(r)
              + " is more than "
              + NodeSetSpecValidator.MAX_NODES
              + ", the most nodes one NodeSet may have; split the fleet into several NodeSets");
      return null;
    }
    return r.asInt();
  }

  private static void checkName(JsonNode name, List<String> problems) {
    if (name == null || !name.isTextual()) {
      problems.add("metadata.name: missing");
      return;
    }
    String n = name.asText();
    if (n.length() > MAX_NAME_LENGTH || !DNS_LABEL.matcher(n).matches()) {
      problems.add(
          "metadata.name: "
              + quote(name)
              + " must be at most "
              + MAX_NAME_LENGTH
              + " lower-case letters, digits and '-' (no dots): pod names <name>-<ordinal>"
              + " are also host names and Slurm node names; recreate the NodeSet under such a"
              + " name");
    }
  }

  private static String textOrNull(JsonNode n) {
    return n == null || n.isNull() ? null : n.asText();
  }

  private static NodeSetSpecView broken(String problem) {
    return new NodeSetSpecView(0, null, null, null, null, null, null, List.of(problem));
  }
}
