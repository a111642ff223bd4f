package dev.tandem.k8s;

import dev.tandem.workflows.model.NodeRef;
import dev.tandem.workflows.model.PodRequest;
import dev.tandem.workflows.model.SlurmSettings;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Builds the slurmd pod of one NodeSet ordinal from a {@link PodRequest}. The contract with the
 * slurmd image (the environment below) is documented in {@code docs/nodeset.md}; add variables,
 * never rename them.
 */
public final class PodFactory {
  private PodFactory() {}

  /** The Slurm node name (= pod name = host name). */
  public static final String ENV_NODE_NAME = "SLURM_NODE_NAME";

  /** Comma-separated features, possibly empty. */
  public static final String ENV_FEATURES = "SLURM_NODE_FEATURES";

  /** GRES, possibly empty. */
  public static final String ENV_GRES = "SLURM_NODE_GRES";

  /** Comma-separated partitions, possibly empty. */
  public static final String ENV_PARTITIONS = "SLURM_NODE_PARTITIONS";

  /** Weight, possibly empty. */
  public static final String ENV_WEIGHT = "SLURM_NODE_WEIGHT";

  /** Ready-made {@code slurmd --conf} value: {@code Feature=a,b Gres=gpu:8 Weight=10}. */
  public static final String ENV_CONF = "SLURM_NODE_CONF";

  public static final String ENV_NODESET = "TANDEM_NODESET";
  public static final String ENV_ORDINAL = "TANDEM_NODE_ORDINAL";
  public static final String ENV_REVISION = "TANDEM_REVISION";

  private static final Set<String> OWN_ENV =
      Set.of(
          ENV_NODE_NAME,
          ENV_FEATURES,
          ENV_GRES,
          ENV_PARTITIONS,
          ENV_WEIGHT,
          ENV_CONF,
          ENV_NODESET,
          ENV_ORDINAL,
          ENV_REVISION);

  /**
   * The pod to create. Keeps the template's labels, annotations and containers; Tandem's labels,
   * host name and environment win over the template's. Owners: the NodeSet (controller, when the
   * request names its uid) and the anchor, the NodeSet CRD with uid {@code anchorUid} ({@link
   * Owners}).
   *
   * @throws IllegalArgumentException if the request cannot make a pod (no template, unreadable
   *     template JSON, no containers)
   */
  public static Pod build(PodRequest request, String anchorUid) {
    if (anchorUid == null || anchorUid.isBlank()) {
      throw new IllegalArgumentException("a slurmd pod needs the uid of its anchor, the CRD");
    }
    Pod pod = withoutOwners(request);
    pod.getMetadata()
        .setOwnerReferences(Owners.of(request.node().nodeSet(), request.ownerUid(), anchorUid));
    return pod;
  }

  /**
   * Checks that {@code request} makes a pod, without the owners (which need an API read).
   *
   * @throws IllegalArgumentException as {@link #build}
   */
  public static void check(PodRequest request) {
    withoutOwners(request);
  }

  private static Pod withoutOwners(PodRequest request) {
    if (request == null || request.node() == null || request.template() == null) {
      throw new IllegalArgumentException("a pod request needs a node and a template");
    }
    NodeRef node = request.node();
    PodTemplateSpec template = parse(request.template().templateJson());
    PodSpec spec = template.getSpec();
    if (spec == null || spec.getContainers() == null || spec.getContainers().isEmpty()) {
      throw new IllegalArgumentException(
          "the pod template of NodeSet " + node.nodeSet() + " has no containers");
    }
    ObjectMeta tm = template.getMetadata() == null ? new ObjectMeta() : template.getMetadata();

    Map<String, String> labels = new LinkedHashMap<>();
    if (tm.getLabels() != null) {
      labels.putAll(tm.getLabels());
    }
    labels.put(PodLabels.NODESET, node.nodeSet());
    labels.put(PodLabels.ORDINAL, Integer.toString(node.ordinal()));
    labels.put(PodLabels.REVISION, request.template().revision());
    labels.put(PodLabels.APP_NAME, PodLabels.APP_NAME_VALUE);
    labels.put(PodLabels.MANAGED_BY, PodLabels.MANAGED_BY_VALUE);

    ObjectMeta meta = new ObjectMeta();
    meta.setName(node.pod());
    meta.setNamespace(node.namespace());
    meta.setLabels(labels);
    if (tm.getAnnotations() != null && !tm.getAnnotations().isEmpty()) {
      meta.setAnnotations(new LinkedHashMap<>(tm.getAnnotations()));
    }
    // The Slurm node name is the pod name; slurmd registers under its host name by default.
    spec.setHostname(node.pod());
    List<EnvVar> env = environment(request, node);
    spec.getContainers().forEach(c -> setEnv(c, env));
    if (spec.getInitContainers() != null) {
      spec.getInitContainers().forEach(c -> setEnv(c, env));
    }

    Pod pod = new Pod();
    pod.setApiVersion("v1");
    pod.setKind("Pod");
    pod.setMetadata(meta);
    pod.setSpec(spec);
    return pod;
  }

  /** What {@code slurmd --conf} needs beyond the node name, e.g. {@code Feature=a,b Gres=gpu:8}. */
  public static String slurmdConf(SlurmSettings s) {
    List<String> parts = new ArrayList<>();
    if (!s.features().isEmpty()) {
      parts.add("Feature=" + String.join(",", s.features()));
    }
    if (s.gres() != null && !s.gres().isBlank()) {
      parts.add("Gres=" + s.gres());
    }
    if (s.weight() != null) {
      parts.add("Weight=" + s.weight());
    }
    return String.join(" ", parts);
  }

  private static List<EnvVar> environment(PodRequest request, NodeRef node) {
    SlurmSettings s = request.template().slurm();
    List<EnvVar> env = new ArrayList<>();
    env.add(new EnvVar(ENV_NODE_NAME, node.slurmName(), null));
    env.add(new EnvVar(ENV_FEATURES, String.join(",", s.features()), null));
    env.add(new EnvVar(ENV_GRES, s.gres() == null ? "" : s.gres(), null));
    env.add(new EnvVar(ENV_PARTITIONS, String.join(",", s.partitions()), null));
    env.add(new EnvVar(ENV_WEIGHT, s.weight() == null ? "" : s.weight().toString(), null));
    env.add(new EnvVar(ENV_CONF, slurmdConf(s), null));
    env.add(new EnvVar(ENV_NODESET, node.nodeSet(), null));
    env.add(new EnvVar(ENV_ORDINAL, Integer.toString(node.ordinal()), null));
    env.add(new EnvVar(ENV_REVISION, request.template().revision(), null));
    return env;
  }

  /** Drops the template's own values for Tandem's variables, then appends Tandem's. */
  private static void setEnv(Container c, List<EnvVar> own) {
    List<EnvVar> env = new ArrayList<>();
    if (c.getEnv() != null) {
      c.getEnv().stream().filter(e -> !OWN_ENV.contains(e.getName())).forEach(env::add);
    }
    own.forEach(e -> env.add(new EnvVar(e.getName(), e.getValue(), null)));
    c.setEnv(env);
  }

  private static PodTemplateSpec parse(String json) {
    if (json == null || json.isBlank()) {
      throw new IllegalArgumentException("the pod template is empty");
    }
    try {
      return Json.MAPPER.readValue(json, PodTemplateSpec.class);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException(
          "the pod template cannot be read: " + e.getOriginalMessage(), e);
    }
  }
}
