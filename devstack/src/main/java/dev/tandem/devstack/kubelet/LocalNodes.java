package dev.tandem.devstack.kubelet;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates (or refreshes) the kubelet's Node objects {@code local-1..N}: capacity (also the
 * allocatable amount), address 127.0.0.1, labels {@code kubernetes.io/hostname} and {@code
 * tandem.dev/local=true}. A new node registers NotReady with the taint {@code
 * node.kubernetes.io/not-ready:NoSchedule}, then turns Ready with the kubelet's first status; the
 * taint goes once Ready is True ({@link #syncNotReadyTaint}), as on a cluster. An existing node
 * keeps its spec (a cordon survives a kubelet restart) and its other labels.
 */
final class LocalNodes {
  private static final Logger log = LoggerFactory.getLogger(LocalNodes.class);

  static final String KUBELET_VERSION = "v1.32.0-tandem-local";

  /** The taint the node lifecycle controller keeps on a node whose Ready is not True. */
  static final String NOT_READY = "node.kubernetes.io/not-ready";

  private LocalNodes() {}

  static void register(KubernetesClient client, KubeletConfig config) {
    for (int i = 1; i <= config.nodes(); i++) {
      String name = config.nodeName(i);
      Map<String, String> labels = new LinkedHashMap<>();
      labels.put("kubernetes.io/hostname", name);
      labels.put("kubernetes.io/os", "linux");
      labels.put("kubernetes.io/arch", "amd64");
      labels.put(KubeletConfig.LOCAL_LABEL, "true");
      Map<String, Quantity> capacity = new LinkedHashMap<>();
      config.capacity().forEach((k, v) -> capacity.put(k, new Quantity(v)));
      Node existing = client.nodes().withName(name).get();
      if (existing == null) {
        Node node =
            new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(labels)
                .endMetadata()
                .withNewSpec()
                .addNewTaint()
                .withKey(NOT_READY)
                .withEffect("NoSchedule")
                .endTaint()
                .endSpec()
                .withNewStatus()
                .withCapacity(capacity)
                .withAllocatable(capacity)
                .withConditions(conditions(false))
                .addNewAddress("127.0.0.1", "InternalIP")
                .addNewAddress(name, "Hostname")
                .withNewNodeInfo()
                .withKubeletVersion(KUBELET_VERSION)
                .withContainerRuntimeVersion("tandem-local://1")
                .withOperatingSystem("linux")
                .withArchitecture("amd64")
                .withOsImage("local processes (Tandem dev stack)")
                .withKernelVersion(System.getProperty("os.version"))
                .withMachineID("")
                .withSystemUUID("")
                .withBootID("")
                .withKubeProxyVersion("")
                .endNodeInfo()
                .endStatus()
                .build();
        try {
          existing = client.nodes().resource(node).create();
          log.info("registered node {} (not ready until its first status)", name);
        } catch (KubernetesClientException e) {
          if (e.getCode() != 409) {
            throw e;
          }
          existing = client.nodes().withName(name).get();
        }
      }
      // The kubelet's first status turns the node Ready; syncNotReadyTaint then lifts the taint.
      Map<String, String> merged =
          new LinkedHashMap<>(
              existing.getMetadata().getLabels() == null
                  ? Map.of()
                  : existing.getMetadata().getLabels());
      merged.putAll(labels);
      client
          .nodes()
          .withName(name)
          .edit(n -> new NodeBuilder(n).editMetadata().withLabels(merged).endMetadata().build());
      client
          .nodes()
          .withName(name)
          .editStatus(
              n ->
                  new NodeBuilder(n)
                      .editStatus()
                      .withCapacity(capacity)
                      .withAllocatable(capacity)
                      .withConditions(conditions(true))
                      .endStatus()
                      .build());
      log.info("refreshed node {}", name);
    }
  }

  /**
   * What the node lifecycle controller does with taints (TaintNodesByCondition): {@code
   * node.kubernetes.io/not-ready:NoSchedule} while Ready is not True, none once it is. Written with
   * the node's resourceVersion; a conflict is left to the next node event.
   */
  static void syncNotReadyTaint(KubernetesClient client, Node n) {
    if (n == null) {
      return;
    }
    boolean ready =
        n.getStatus() != null
            && n.getStatus().getConditions() != null
            && n.getStatus().getConditions().stream()
                .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    List<Taint> taints =
        new ArrayList<>(n.getSpec().getTaints() == null ? List.of() : n.getSpec().getTaints());
    boolean tainted =
        taints.stream()
            .anyMatch(t -> NOT_READY.equals(t.getKey()) && "NoSchedule".equals(t.getEffect()));
    if (ready != tainted) {
      return;
    }
    if (ready) {
      taints.removeIf(t -> NOT_READY.equals(t.getKey()) && "NoSchedule".equals(t.getEffect()));
    } else {
      taints.add(new TaintBuilder().withKey(NOT_READY).withEffect("NoSchedule").build());
    }
    Node next = new NodeBuilder(n).editSpec().withTaints(taints).endSpec().build();
    try {
      client.nodes().resource(next).update();
      log.info(
          "node {}: {} taint {}",
          n.getMetadata().getName(),
          ready ? "removed" : "added",
          NOT_READY);
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409 && e.getCode() != 404) {
        throw e;
      }
    }
  }

  private static List<NodeCondition> conditions(boolean ready) {
    String now = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
    List<NodeCondition> out = new ArrayList<>();
    out.add(
        ready
            ? cond("Ready", "True", "KubeletReady", "kubelet is posting ready status", now)
            : cond(
                "Ready",
                "False",
                "KubeletNotReady",
                "container runtime status check may not have completed yet",
                now));
    out.add(
        cond(
            "MemoryPressure",
            "False",
            "KubeletHasSufficientMemory",
            "kubelet has sufficient memory available",
            now));
    out.add(
        cond(
            "DiskPressure",
            "False",
            "KubeletHasNoDiskPressure",
            "kubelet has no disk pressure",
            now));
    out.add(
        cond(
            "PIDPressure",
            "False",
            "KubeletHasSufficientPID",
            "kubelet has sufficient PID available",
            now));
    return out;
  }

  private static NodeCondition cond(
      String type, String status, String reason, String message, String now) {
    return new NodeConditionBuilder()
        .withType(type)
        .withStatus(status)
        .withReason(reason)
        .withMessage(message)
        .withLastHeartbeatTime(now)
        .withLastTransitionTime(now)
        .build();
  }
}
