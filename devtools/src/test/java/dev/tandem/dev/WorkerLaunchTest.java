package dev.tandem.dev;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WorkerLaunchTest {
  @Test
  void exitsAreDescribedAsAPersonWouldSayThem() {
    assertEquals("was killed (SIGKILL)", WorkerLaunch.describeExit(137));
    assertEquals("was stopped (SIGTERM)", WorkerLaunch.describeExit(143));
    assertEquals("was killed by signal 6", WorkerLaunch.describeExit(134));
    assertEquals("exited with code 2", WorkerLaunch.describeExit(2));
    assertEquals("exited", WorkerLaunch.describeExit(0));
  }

  @Test
  void theWorkerRunsThisClasspathAndNamesItsStack() {
    WorkerLaunch w = new WorkerLaunch(Path.of("/tmp/st"), 9999, Map.of());
    List<String> cmd = w.command();
    assertTrue(cmd.contains("-Dtandem.dev.state-dir=/tmp/st"), cmd.toString());
    assertTrue(cmd.containsAll(WorkerLaunch.JVM_OPTIONS), cmd.toString());
    int cp = cmd.indexOf("-cp");
    assertEquals(System.getProperty("java.class.path"), cmd.get(cp + 1));
    assertEquals(
        List.of(WorkerLaunch.MAIN, "worker", "--stop-when-stdin-closes"),
        cmd.subList(cp + 2, cmd.size()));
    assertEquals(Path.of("/tmp/st/worker.pid"), w.pidFile());
    assertEquals(Path.of("/tmp/st/worker.log"), w.logFile());
    assertEquals("http://127.0.0.1:9999/metrics", w.metricsUrl().toString());
  }

  @Test
  void javaOptionsCanBeReplaced() {
    WorkerLaunch w =
        new WorkerLaunch(
            Path.of("/tmp/st"), 1, Map.of("TANDEM_WORKER_JAVA_OPTS", " -Xmx1g  -Dx=y "));
    List<String> cmd = w.command();
    assertTrue(cmd.contains("-Xmx1g") && cmd.contains("-Dx=y"), cmd.toString());
    assertTrue(!cmd.contains("-Xmx512m"), cmd.toString());
  }

  @Test
  void durationsReadWell() {
    assertEquals("850ms", WorkerLaunch.fmt(Duration.ofMillis(850)));
    assertEquals("4.2s", WorkerLaunch.fmt(Duration.ofMillis(4200)));
    assertEquals("2m13s", WorkerLaunch.fmt(Duration.ofSeconds(133)));
  }
}
