package dev.tandem.devstack.kubelet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcessRecordsTest {
  @TempDir Path dir;

  private static ProcessSpec sleep(String pod, String seconds) {
    return new ProcessSpec("default", pod, "slurmd", List.of("sleep", seconds), Map.of(), null);
  }

  @Test
  void aStartedProcessIsRecordedLiveAndForgottenWhenItEnds() throws Exception {
    ProcessRecords records = new ProcessRecords(dir.resolve("procs"));
    RunningProcess p = records.launcher(new OsProcessLauncher()).launch(sleep("a-0", "30"));
    try {
      List<ProcessRecords.Entry> l = records.list();
      assertEquals(1, l.size());
      ProcessRecords.Entry e = l.get(0);
      assertEquals(p.pid(), e.pid());
      assertEquals("a-0", e.pod());
      assertEquals(List.of("sleep", "30"), e.command());
      assertEquals(p.pid(), e.live().orElseThrow().pid());
    } finally {
      p.kill();
    }
    p.exit().get(10, TimeUnit.SECONDS);
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!records.list().isEmpty() && System.nanoTime() < end) {
      Thread.sleep(20);
    }
    assertTrue(records.list().isEmpty(), "the record goes with the process");
  }

  /** A record survives its JVM; what it names must still be that very process to count. */
  @Test
  void onlyTheSameProcessCountsAsLive() throws Exception {
    ProcessRecords records = new ProcessRecords(dir);
    Process other = new ProcessBuilder("sleep", "31").start();
    try {
      long pid = other.pid();
      Path same = records.add(sleep("b-0", "31"), pid);
      assertTrue(records.list().get(0).live().isPresent());
      records.forget(same, pid);

      // Another argv under the recorded pid: a reused pid, not ours.
      records.add(sleep("b-1", "99"), pid);
      assertTrue(records.list().get(0).live().isEmpty());
      Files.list(dir).forEach(f -> f.toFile().delete());

      // Another start time under the recorded pid and argv: also a reused pid.
      Path f = records.add(sleep("b-2", "31"), pid);
      String text = Files.readString(f);
      Files.writeString(f, text.replaceAll("started=.*", "started=2001-01-01T00\\\\:00\\\\:00Z"));
      assertTrue(records.list().get(0).live().isEmpty());
    } finally {
      other.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    // The process is gone: the record names nothing alive.
    assertTrue(
        records.list().stream().allMatch(e -> e.live().isEmpty()), "dead processes are never live");
  }
}
