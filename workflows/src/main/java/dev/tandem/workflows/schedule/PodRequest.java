package dev.tandem.workflows.schedule;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.Map;
import java.util.TreeMap;

/**
 * A pod with {@code spec.schedulerName: tandem-slurm}, as the pod watcher sends it to start its
 * scheduling workflow ({@code schedule/<ns>/<pod>/<uid>}). Not to be confused with {@code
 * model.PodRequest}, which creates a slurmd pod.
 *
 * @param namespace pod namespace
 * @param name pod name
 * @param uid pod uid (tags the placeholder job)
 * @param requests the sum of the containers' resource requests, as Kubernetes quantities ({@code
 *     cpu: 500m}, {@code memory: 1Gi}, {@code nvidia.com/gpu: 2}); init containers count as
 *     Kubernetes counts them (the watcher computes the effective request)
 * @param annotations the pod's annotations (only {@code tandem.dev/*} ones matter)
 * @param nodeSelector the pod's node selector (e.g. a GPU model label such as {@code
 *     nvidia.com/gpu.product: A100}, which chooses the GRES type)
 * @param priorityClassName {@code spec.priorityClassName}, or null
 * @param terminationGracePeriodSeconds {@code spec.terminationGracePeriodSeconds}, or null for the
 *     Kubernetes default (30 s)
 * @param nodeName {@code spec.nodeName}; must be empty (a pod that names its node is not scheduled
 *     by Slurm)
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record PodRequest(
    String namespace,
    String name,
    String uid,
    Map<String, String> requests,
    Map<String, String> annotations,
    Map<String, String> nodeSelector,
    String priorityClassName,
    Long terminationGracePeriodSeconds,
    String nodeName) {

  /** Kubernetes' default {@code terminationGracePeriodSeconds}. */
  public static final long DEFAULT_GRACE_SECONDS = 30;

  public PodRequest {
    // Sorted copies: iteration order reaches messages and the GRES string, which must not depend
    // on how the watcher built its maps.
    requests = requests == null ? Map.of() : new TreeMap<>(requests);
    annotations = annotations == null ? Map.of() : new TreeMap<>(annotations);
    nodeSelector = nodeSelector == null ? Map.of() : new TreeMap<>(nodeSelector);
  }

  /** The grace period Kubernetes applies: the pod's, or 30 s. */
  public long graceSeconds() {
    return terminationGracePeriodSeconds == null
        ? DEFAULT_GRACE_SECONDS
        : terminationGracePeriodSeconds;
  }

  /** The value of annotation {@code tandem.dev/<key>}, or null. */
  public String annotation(String key) {
    return annotations.get(key);
  }

  /** {@code <ns>/<name>} */
  public String ref() {
    return namespace + "/" + name;
  }
}
