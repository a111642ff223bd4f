package dev.tandem.dev;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StackLockTest {
  @TempDir Path slurmDir;

  @Test
  void oneStackPerSlurmAndTheMessageNamesTheHolder() throws Exception {
    try (StackLock first = StackLock.acquire(slurmDir, "state dir /tmp/first")) {
      IllegalStateException e =
          assertThrows(
              IllegalStateException.class, () -> StackLock.acquire(slurmDir, "state dir /tmp/b"));
      assertTrue(
          e.getMessage().contains("another Tandem stack uses the local Slurm"), e.getMessage());
      assertTrue(e.getMessage().contains("state dir /tmp/first"), e.getMessage());
      assertTrue(e.getMessage().contains("pid " + ProcessHandle.current().pid()), e.getMessage());
    }
    StackLock.acquire(slurmDir, "state dir /tmp/second").close(); // free again once released
  }
}
