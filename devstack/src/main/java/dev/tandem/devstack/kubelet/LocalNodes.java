package dev.tandem.devstack.kubelet;

import dev.tandem.devstack.kube.OnConflict;
import io.fabric8.kubernetes.api.model.DaemonEndpoint;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
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
 * allocatable amount), address 127.0.0.1, the kubelet's endpoint port, labels {@code
 * kubernetes.io/hostname} and {@code tandem.dev/local=true}, Ready. The API server gives a new node
 * the taint {@code node.kubernetes.io/not-ready:NoSchedule} and the node lifecycle controller lifts
 * it once it sees the node Ready, as on any cluster. An existing node keeps its spec (a cordon
 * survives a kubelet restart) and its other labels.
 */
final class LocalNodes {
  private static final Logger log = LoggerFactory.getLogger(LocalNodes.class);

  static final String KUBELET_VERSION = "v1.32.0-tandem-local";

  private LocalNodes() {}

  /**
   * @param kubeletPort the port of the kubelet's endpoint ({@link KubeletLogs}) on 127.0.0.1
   */
  static void register(KubernetesClient client, KubeletConfig config, int kubeletPort) {
    for (int i = 1; i <= config.nodes(); i++) {
      String name = config.nodeName(i);
      Map<String, String> labels = new LinkedHashMap<>();
      labels.put("kubernetes.io/hostname", name);
      labels.put("kubernetes.io/os", "linux");
      labels.put("kubernetes.io/arch", "amd64");
      labels.put(KubeletConfig.LOCAL_LABEL, "true");
      Map<String, Quantity> capacity = new LinkedHashMap<>();
      config.capacity().forEach((k, v) -> capacity.put(k, new Quantity(v)));
      Node node =
          new NodeBuilder()
              .withNewMetadata()
              .withName(name)
              .withLabels(labels)
              .endMetadata()
              .withNewStatus()
              .withCapacity(capacity)
              .withAllocatable(capacity)
              .withConditions(conditions())
              .addNewAddress("127.0.0.1", "InternalIP")
              .addNewAddress(name, "Hostname")
              .withNewDaemonEndpoints()
              .withKubeletEndpoint(new DaemonEndpoint(kubeletPort))
              .endDaemonEndpoints()
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
        client.nodes().resource(node).create();
        log.info("registered node {}", name);
        continue;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409) {
          throw e;
        }
      }
      OnConflict.retry(
          () ->
              client
                  .nodes()
                  .withName(name)
                  .edit(
                      n -> {
                        Map<String, String> merged = new LinkedHashMap<>();
                        if (n.getMetadata().getLabels() != null) {
                          merged.putAll(n.getMetadata().getLabels());
                        }
                        merged.putAll(labels);
                        return new NodeBuilder(n)
                            .editMetadata()
                            .withLabels(merged)
                            .endMetadata()
                            .build();
                      }));
      OnConflict.retry(
          () ->
              client
                  .nodes()
                  .withName(name)
                  .editStatus(
                      n ->
                          new NodeBuilder(n)
                              .editStatus()
                              .withCapacity(capacity)
                              .withAllocatable(capacity)
                              .withConditions(conditions())
                              .withNewDaemonEndpoints()
                              .withKubeletEndpoint(new DaemonEndpoint(kubeletPort))
                              .endDaemonEndpoints()
                              .endStatus()
                              .build()));
      log.info("refreshed node {}", name);
    }
  }

  private static List<NodeCondition> conditions() {
    String now = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
    List<NodeCondition> out = new ArrayList<>();
    out.add(cond("Ready", "True", "KubeletReady", "kubelet is posting ready status", now));
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
