package dev.tandem.devstack.kubelet;

import java.util.concurrent.CompletableFuture;

/** A started container process. */
public interface RunningProcess {
  /** The OS process id (or a stable fake id in tests). */
  long pid();

  /** Completes with the exit code when the process ends (128+signal when killed by a signal). */
  CompletableFuture<Integer> exit();

  /** Asks the process to stop (SIGTERM). */
  void terminate();

  /** Stops it now (SIGKILL). */
  void kill();

  default boolean isAlive() {
    return !exit().isDone();
  }
}
