package dev.tandem.devstack.kubelet;

import java.time.Duration;
import java.time.Instant;

/** What the kubelet knows about one pod it runs; touched only by the sync thread. */
final class PodState {
  /** A finished container run. */
  record Termination(int exitCode, String reason, Instant startedAt, Instant finishedAt) {}

  final String namespace;
  final String name;
  final String uid;
  final String container;

  /** Null when no process runs (virtual container, waiting, finished). */
  RunningProcess process;

  /** True for pods that run without a process (everything but slurmd pods). */
  boolean virtual;

  /** A slurmd pod whose name slurm.conf does not declare: a dynamic node ({@link DynamicNodes}). */
  boolean dynamic;

  int restartCount;
  Instant podStartTime;
  Instant containerStartedAt;
  Termination lastTermination;
  Termination finalTermination;

  /** Set while a crashed container waits out its back-off. */
  Instant restartAt;

  Duration backoff;

  /** Why the container does not run (e.g. the Slurm node is not declared). */
  String waitingReason;

  String waitingMessage;

  /** Pod phase the kubelet reports. */
  String phase = "Pending";

  /** Set once termination started (SIGTERM sent or nothing to stop). */
  Instant killAt;

  boolean deleteSent;

  PodState(String namespace, String name, String uid, String container) {
    this.namespace = namespace;
    this.name = name;
    this.uid = uid;
    this.container = container;
  }

  String key() {
    return namespace + "/" + name;
  }

  boolean running() {
    return virtual
        ? containerStartedAt != null && finalTermination == null
        : process != null && process.isAlive();
  }
}
