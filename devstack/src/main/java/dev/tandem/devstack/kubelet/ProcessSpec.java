package dev.tandem.devstack.kubelet;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What the kubelet wants run for one container of a pod.
 *
 * @param command argv; for a slurmd pod {@code [SLURMD_BIN, -D, -N, <pod>, -f, <slurm.conf>]}
 * @param env extra environment on top of the kubelet's own
 * @param logFile where stdout and stderr go (appended); null discards them
 */
public record ProcessSpec(
    String namespace,
    String pod,
    String container,
    List<String> command,
    Map<String, String> env,
    Path logFile) {
  public ProcessSpec {
    command = List.copyOf(command);
    env = Map.copyOf(env);
    if (command.isEmpty()) {
      throw new IllegalArgumentException("empty command for pod " + namespace + "/" + pod);
    }
  }
}
