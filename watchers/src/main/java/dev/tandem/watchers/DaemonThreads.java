package dev.tandem.watchers;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;

/**
 * Named daemon threads for the watchers' timers and calls: a watcher thread never keeps the worker
 * process alive once its main thread is done, and a thread dump names what each one does.
 */
final class DaemonThreads {
  private DaemonThreads() {}

  static ThreadFactory named(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  /** A single-thread scheduler on a daemon thread called {@code name}. */
  static ScheduledExecutorService scheduler(String name) {
    return Executors.newSingleThreadScheduledExecutor(named(name));
  }
}
