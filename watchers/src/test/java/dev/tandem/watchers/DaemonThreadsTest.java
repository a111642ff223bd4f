package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class DaemonThreadsTest {
  @Test
  void schedulerRunsOnANamedDaemonThread() throws Exception {
    ScheduledExecutorService s = DaemonThreads.scheduler("tandem-test");
    try {
      Thread t = s.submit(Thread::currentThread).get(10, TimeUnit.SECONDS);
      assertEquals("tandem-test", t.getName());
      assertTrue(t.isDaemon());
    } finally {
      s.shutdownNow();
    }
  }
}
