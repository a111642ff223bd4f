package dev.tandem.devstack.kubelet;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the pods bound to the kubelet's nodes; called on the kubelet's single sync thread only.
 * slurmd pods (label {@code tandem.dev/nodeset}) get a real {@code slurmd -D -N <pod> -f <conf>}
 * when slurm.conf declares the name, else a dynamic {@code slurmd -D -Z} ({@link DynamicNodes});
 * other pods run without a process. Exits restart per {@code restartPolicy} with the kubelet's
 * doubling back-off; a pod with a deletionTimestamp gets SIGTERM, SIGKILL after its grace period,
 * and is then deleted with grace 0 (uid precondition), which lets the object go.
 */
final class PodWorker {
  private static final Logger log = LoggerFactory.getLogger(PodWorker.class);

  /** A container that ran this long resets its back-off, like the kubelet's (2 x 5 min). */
  static final Duration BACKOFF_RESET = Duration.ofMinutes(10);

  private final KubernetesClient client;
  private final KubeletConfig config;
  private final SlurmSetup slurm;
  private final BiConsumer<String, Duration> enqueueLater;

  /** The pod whose dynamic slurmd holds the SlurmdPort ({@link DynamicNodes}), if any. */
  private PodState dynamicHolder;

  static final String NODE_CONF_ENV = "SLURM_NODE_CONF";

  PodWorker(
      KubernetesClient client,
      KubeletConfig config,
      SlurmSetup slurm,
      BiConsumer<String, Duration> enqueueLater) {
    this.client = client;
    this.config = config;
    this.slurm = slurm;
    this.enqueueLater = enqueueLater;
  }

  /** A new state for a pod seen on one of our nodes; adopts the restart count it already shows. */
  PodState adopt(Pod pod) {
    PodState s =
        new PodState(
            pod.getMetadata().getNamespace(),
            pod.getMetadata().getName(),
            pod.getMetadata().getUid(),
            PodStatuses.mainContainer(pod));
    if (pod.getStatus() != null && pod.getStatus().getContainerStatuses() != null) {
      for (ContainerStatus cs : pod.getStatus().getContainerStatuses()) {
        if (s.container.equals(cs.getName()) && cs.getRestartCount() != null) {
          // The previous kubelet's process died with it: that is a restart of the container.
          boolean wasRunning = cs.getState() != null && cs.getState().getRunning() != null;
          s.restartCount = cs.getRestartCount() + (wasRunning ? 1 : 0);
        }
      }
    }
    if (pod.getStatus() != null && pod.getStatus().getStartTime() != null) {
      s.podStartTime = Instant.parse(pod.getStatus().getStartTime());
    }
    return s;
  }

  /**
   * Marks a pod the kubelet refuses to run (see {@link Admission}) Failed, with an event; false
   * when the status could not be written (tried again on the next sync).
   */
  boolean reject(Pod pod, Admission.Rejection r) {
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    ObjectNode patch = PodStatuses.MAPPER.createObjectNode();
    patch
        .putObject("status")
        .put("phase", "Failed")
        .put("reason", r.reason())
        .put("message", "Pod was rejected: " + r.message());
    try {
      client
          .pods()
          .inNamespace(ns)
          .withName(name)
          .subresource("status")
          .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), patch.toString());
      log.info("pod {}/{} rejected: {}", ns, name, r.message());
      Events.warning(client, pod, r.reason(), r.message(), pod.getSpec().getNodeName());
      return true;
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        log.warn("cannot reject pod {}/{}: {}", ns, name, e.getMessage());
      }
      return e.getCode() == 404;
    }
  }

  /** Brings one pod toward its desired state. */
  void sync(Pod pod, PodState s) {
    if (pod.getMetadata().getDeletionTimestamp() != null) {
      terminate(pod, s);
      return;
    }
    if (s.process != null && !s.process.isAlive()) {
      exited(pod, s, s.process.exit().join());
    }
    if (s.finalTermination != null) {
      writeStatus(pod, s);
      return;
    }
    if (s.restartAt != null && Instant.now().isBefore(s.restartAt)) {
      writeStatus(pod, s);
      return;
    }
    if (!s.running()) {
      start(pod, s);
    }
    writeStatus(pod, s);
  }

  private void start(Pod pod, PodState s) {
    boolean slurmd =
        pod.getMetadata().getLabels() != null
            && pod.getMetadata().getLabels().containsKey(KubeletConfig.NODESET_LABEL);
    s.restartAt = null;
    if (!slurmd) {
      s.virtual = true;
      s.containerStartedAt = Instant.now();
      s.waitingReason = null;
      s.waitingMessage = null;
      running(s);
      return;
    }
    SlurmSetup.Snapshot snap = slurm.get();
    if (snap.problem() != null) {
      waiting(s, "CreateContainerConfigError", snap.problem());
      return;
    }
    s.dynamic = !snap.declares(s.name);
    if (s.dynamic && dynamicHolder != null && dynamicHolder != s && dynamicHolder.running()) {
      waiting(s, DynamicNodes.PORT_BUSY, SlurmSetup.portBusy(s.name, dynamicHolder.name, snap));
      enqueueLater.accept(s.key(), config.resync());
      return;
    }
    List<String> cmd;
    try {
      if (s.dynamic) {
        // Like a real kubelet, never touch the Slurm record: the node workflow removes an old
        // pod's record before it creates the new pod (docs/nodeset.md, "The pod contract").
        cmd = DynamicNodes.prepare(snap, s.name, envOf(pod, s.container, NODE_CONF_ENV));
        dynamicHolder = s;
      } else {
        cmd = List.of(snap.slurmdBin(), "-D", "-N", s.name, "-f", snap.slurmConf().toString());
      }
    } catch (IOException | RuntimeException e) {
      waiting(s, "CreateContainerConfigError", "dynamic node " + s.name + ": " + e.getMessage());
      return;
    }
    try {
      if (snap.spoolDirPattern() != null) {
        Files.createDirectories(Path.of(snap.spoolDirPattern().replace("%n", s.name)));
      }
      Path logFile = config.logFile(s.namespace, s.name, s.container);
      s.process =
          config
              .launcher()
              .launch(new ProcessSpec(s.namespace, s.name, s.container, cmd, Map.of(), logFile));
    } catch (IOException | RuntimeException e) {
      log.warn("cannot start {} for pod {}: {}", cmd, s.key(), e.toString());
      s.containerStartedAt = Instant.now();
      waiting(s, "RunContainerError", "cannot start " + cmd.get(0) + ": " + e.getMessage());
      exited(pod, s, 128);
      return;
    }
    s.containerStartedAt = Instant.now();
    s.waitingReason = null;
    s.waitingMessage = null;
    final String key = s.key();
    s.process.exit().whenComplete((code, err) -> enqueueLater.accept(key, Duration.ZERO));
    log.info("started {} for pod {} (pid {})", String.join(" ", cmd), key, s.process.pid());
    running(s);
  }

  /** A literal env value of the pod's container, or null (valueFrom is not resolved here). */
  static String envOf(Pod pod, String container, String name) {
    for (var c : pod.getSpec().getContainers()) {
      if (c.getName().equals(container) && c.getEnv() != null) {
        for (var e : c.getEnv()) {
          if (name.equals(e.getName())) {
            return e.getValue();
          }
        }
      }
    }
    return null;
  }

  private static void running(PodState s) {
    if (s.podStartTime == null) {
      s.podStartTime = Instant.now();
    }
    s.phase = "Running";
  }

  private static void waiting(PodState s, String reason, String message) {
    s.waitingReason = reason;
    s.waitingMessage = message;
  }

  /** Handles a container exit according to the pod's restartPolicy. */
  private void exited(Pod pod, PodState s, int code) {
    Instant now = Instant.now();
    Instant started = s.containerStartedAt == null ? now : s.containerStartedAt;
    PodState.Termination t =
        new PodState.Termination(code, code == 0 ? "Completed" : "Error", started, now);
    s.process = null;
    String policy =
        pod.getSpec().getRestartPolicy() == null ? "Always" : pod.getSpec().getRestartPolicy();
    boolean restart = policy.equals("Always") || (policy.equals("OnFailure") && code != 0);
    if (!restart) {
      s.finalTermination = t;
      s.phase = code == 0 ? "Succeeded" : "Failed";
      log.info("pod {} finished: exit {} -> {}", s.key(), code, s.phase);
      return;
    }
    s.lastTermination = t;
    s.restartCount++;
    boolean longRun = Duration.between(started, now).compareTo(BACKOFF_RESET) >= 0;
    s.backoff =
        s.backoff == null || longRun
            ? config.backoffInitial()
            : min(s.backoff.multipliedBy(2), config.backoffMax());
    s.restartAt = now.plus(s.backoff);
    if (s.waitingReason == null || !s.waitingReason.equals("RunContainerError")) {
      waiting(
          s,
          "CrashLoopBackOff",
          "back-off "
              + s.backoff.toSeconds()
              + "s restarting failed container="
              + s.container
              + " pod="
              + s.name
              + "_"
              + s.namespace
              + "("
              + s.uid
              + ")");
    }
    log.info(
        "pod {} container exited with {}; restart #{} in {}",
        s.key(),
        code,
        s.restartCount,
        s.backoff);
    enqueueLater.accept(s.key(), s.backoff);
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  /**
   * The pod's side of a node reboot ({@link NodeReboots}): the process is already gone (the caller
   * stopped it); a container that ran counts a restart with the status a kubelet shows after a
   * reboot (last state terminated, reason Unknown, exit code 255: the runtime lost it), and starts
   * again at once (a reboot is not a crash: no back-off). A finished pod stays finished.
   */
  void reboot(Pod pod, PodState s) {
    if (s.finalTermination != null || pod.getMetadata().getDeletionTimestamp() != null) {
      return;
    }
    boolean ran = s.virtual ? s.containerStartedAt != null : s.process != null;
    if (ran) {
      Instant now = Instant.now();
      Instant started = s.containerStartedAt == null ? now : s.containerStartedAt;
      s.lastTermination = new PodState.Termination(255, "Unknown", started, now);
      s.restartCount++;
    }
    s.process = null;
    s.containerStartedAt = null;
    s.restartAt = null;
    s.backoff = null;
    s.waitingReason = null;
    s.waitingMessage = null;
    log.info("pod {}: node rebooted; restart #{}", s.key(), s.restartCount);
    start(pod, s);
    writeStatus(pod, s);
  }

  /**
   * SIGTERM, SIGKILL after the grace period, then the final delete with grace 0. The dynamic node's
   * Slurm record stays, as with a real kubelet: the node workflow removes it.
   */
  private void terminate(Pod pod, PodState s) {
    if (s.deleteSent) {
      return;
    }
    if (stop(s, graceOf(pod))) {
      return; // still stopping; the exit (or the kill deadline) brings us back
    }
    if (s.dynamic) {
      s.dynamic = false;
      if (dynamicHolder == s) {
        dynamicHolder = null;
      }
    }
    Map<String, Object> opts =
        Map.of(
            "apiVersion",
            "v1",
            "kind",
            "DeleteOptions",
            "gracePeriodSeconds",
            0,
            "preconditions",
            Map.of("uid", s.uid));
    try {
      client.raw("/api/v1/namespaces/" + s.namespace + "/pods/" + s.name, "DELETE", opts);
      log.info("pod {} stopped and deleted", s.key());
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404 && e.getCode() != 409) {
        throw e;
      }
    }
    s.deleteSent = true;
  }

  /**
   * Stops the process of {@code s}: SIGTERM first, SIGKILL once the grace period is over. Returns
   * true while the process is still alive (the caller comes back later).
   */
  boolean stop(PodState s, Duration grace) {
    RunningProcess p = s.process;
    if (p == null || !p.isAlive()) {
      if (p != null) {
        s.process = null;
      }
      return false;
    }
    Instant now = Instant.now();
    if (s.killAt == null) {
      Duration g = min(grace, config.maxGrace());
      s.killAt = now.plus(g);
      log.info("stopping pod {} (SIGTERM to pid {}, SIGKILL in {})", s.key(), p.pid(), g);
      p.terminate();
      enqueueLater.accept(s.key(), g);
    } else if (!now.isBefore(s.killAt)) {
      log.info("pod {}: grace period over, SIGKILL to pid {}", s.key(), p.pid());
      p.kill();
    }
    return true;
  }

  static Duration graceOf(Pod pod) {
    Long g = pod.getMetadata().getDeletionGracePeriodSeconds();
    if (g == null) {
      g = pod.getSpec().getTerminationGracePeriodSeconds();
    }
    return Duration.ofSeconds(g == null ? 30 : Math.max(0, g));
  }

  void writeStatus(Pod pod, PodState s) {
    ObjectNode wanted = PodStatuses.status(pod, s);
    if (PodStatuses.alreadyShown(pod, wanted)) {
      return;
    }
    ObjectNode patch = PodStatuses.MAPPER.createObjectNode();
    patch.set("status", wanted);
    try {
      client
          .pods()
          .inNamespace(s.namespace)
          .withName(s.name)
          .subresource("status")
          .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), patch.toString());
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        log.warn("cannot update status of pod {}: {}", s.key(), e.getMessage());
      }
    }
  }
}
