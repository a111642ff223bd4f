package dev.tandem.devstack.kubelet;

import dev.tandem.devstack.kube.OnConflict;
import dev.tandem.workflows.Names;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The local kubelet as the node agent of remediation's default reboot action (docs/remediation.md):
 * a node annotated {@code tandem.dev/reboot-requested=<token>} that does not carry {@code
 * tandem.dev/rebooted=<token>} is "rebooted": every pod process on it is stopped and started again
 * (see {@link PodWorker#reboot}), then the node reports what a rebooted machine's kubelet reports
 * (a new {@code bootID}, Ready with a new transition time; other conditions untouched) and the
 * token is echoed in {@code tandem.dev/rebooted}, last, so whoever waits for it sees the rest.
 */
final class NodeReboots {
  private NodeReboots() {}

  /** The token of a reboot asked for and not yet carried out, or null. */
  static String pending(Node n) {
    if (n == null || n.getMetadata().getAnnotations() == null) {
      return null;
    }
    Map<String, String> a = n.getMetadata().getAnnotations();
    String asked = a.get(Names.ANNOTATION_REBOOT_REQUESTED);
    if (asked == null || asked.isEmpty() || asked.equals(a.get(Names.ANNOTATION_REBOOTED))) {
      return null;
    }
    return asked;
  }

  /**
   * Stops the processes as a machine going down does: SIGTERM to all, SIGKILL to those still alive
   * after {@code grace}; waits (bounded) until they are gone.
   */
  static void stopAll(List<RunningProcess> procs, Duration grace) {
    procs.forEach(RunningProcess::terminate);
    if (!awaitExit(procs, grace)) {
      procs.stream().filter(RunningProcess::isAlive).forEach(RunningProcess::kill);
      awaitExit(procs, Duration.ofSeconds(5));
    }
  }

  private static boolean awaitExit(List<RunningProcess> procs, Duration max) {
    try {
      CompletableFuture.allOf(
              procs.stream().map(RunningProcess::exit).toArray(CompletableFuture[]::new))
          .get(max.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (TimeoutException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (ExecutionException e) {
      return true;
    }
  }

  /** Reports the node as booted again and echoes {@code token}. */
  static void markRebooted(KubernetesClient client, String node, String token) {
    String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    OnConflict.retry(
        () ->
            client
                .nodes()
                .withName(node)
                .editStatus(
                    n -> {
                      List<NodeCondition> conditions = new ArrayList<>();
                      for (NodeCondition c :
                          n.getStatus().getConditions() == null
                              ? List.<NodeCondition>of()
                              : n.getStatus().getConditions()) {
                        if ("Ready".equals(c.getType())) {
                          c =
                              new NodeConditionBuilder(c)
                                  .withStatus("True")
                                  .withReason("KubeletReady")
                                  .withMessage("kubelet is posting ready status")
                                  .withLastHeartbeatTime(now)
                                  .withLastTransitionTime(now)
                                  .build();
                        }
                        conditions.add(c);
                      }
                      return new NodeBuilder(n)
                          .editStatus()
                          .withConditions(conditions)
                          .editOrNewNodeInfo()
                          .withBootID(UUID.randomUUID().toString())
                          .endNodeInfo()
                          .endStatus()
                          .build();
                    }));
    client
        .nodes()
        .withName(node)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"metadata\":{\"annotations\":{\""
                + Names.ANNOTATION_REBOOTED
                + "\":"
                + PodStatuses.MAPPER.valueToTree(token)
                + "}}}");
  }
}
