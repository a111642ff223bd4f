package dev.tandem.slurm.fake;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** One job of the fake cluster: what was asked for and where it stands. */
final class FakeJob {
  /** Job base states the fake produces (Slurm's names). */
  enum State {
    PENDING,
    RUNNING,
    COMPLETED,
    CANCELLED,
    FAILED,
    TIMEOUT,
    PREEMPTED,
    NODE_FAIL;

    boolean ended() {
      return this != PENDING && this != RUNNING;
    }
  }

  /** {@code shared}: none = whole nodes ({@code --exclusive}), user = {@code --exclusive=user}. */
  enum Sharing {
    SHARED,
    EXCLUSIVE,
    USER
  }

  final long id;
  final String name;
  final String comment;
  final String partition;
  final String account;
  final String qos;
  final String user;
  final int nodeCount;
  final List<String> required;
  final List<String> excluded;
  final int cpusPerNode;
  final long memoryMbPerNode;
  final Map<String, Integer> gres;

  /** {@code tres_per_node} as submitted ({@code gres/gpu:2}), or null: Slurm answers it as sent. */
  final String tresPerNode;

  final Long timeLimitMinutes;
  final Sharing sharing;
  final boolean requeue;
  final Instant submitTime;

  State state = State.PENDING;
  String reason = "None";
  List<String> nodes = new ArrayList<>();
  int restarts;
  Instant startTime;
  Instant endTime;
  Instant preemptTime;

  /** A requeued job is not eligible before this (reason BeginTime); null = at once. */
  Instant eligibleAt;

  /** The exit: return code, or a signal number when {@link #signaled}. */
  int exit;

  boolean signaled;

  FakeJob(long id, JobRequest r, String user, Instant now) {
    this.id = id;
    this.name = r.name();
    this.comment = r.comment();
    this.partition = r.partition();
    this.account = r.account() == null ? FakeAccounting.DEFAULT_ACCOUNT : r.account();
    this.qos = r.qos() == null ? FakeAccounting.DEFAULT_QOS : r.qos();
    this.user = user;
    this.nodeCount = r.nodeCount();
    this.required = List.copyOf(r.required());
    this.excluded = List.copyOf(r.excluded());
    this.cpusPerNode = r.cpusPerNode();
    this.memoryMbPerNode = r.memoryMbPerNode();
    this.gres = Map.copyOf(r.gres());
    this.tresPerNode = r.tresPerNode();
    this.timeLimitMinutes = r.timeLimitMinutes();
    this.sharing = r.sharing();
    this.requeue = r.requeue();
    this.submitTime = now;
  }

  /** A submitted job's request, as read from {@code job_desc_msg}. */
  record JobRequest(
      String name,
      String comment,
      String partition,
      String account,
      String qos,
      int nodeCount,
      List<String> required,
      List<String> excluded,
      int cpusPerNode,
      long memoryMbPerNode,
      Map<String, Integer> gres,
      String tresPerNode,
      Long timeLimitMinutes,
      Sharing sharing,
      boolean requeue,
      String reservation) {}

  void end(State s, Instant now) {
    state = s;
    endTime = now;
    reason = "None";
  }
}
