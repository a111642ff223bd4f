package dev.tandem.dev;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;

/**
 * One stack per local Slurm: a dev stack holds an exclusive lock on {@code
 * <slurm-dir>/tandem-stack.lock} while it runs. Two stacks on one Slurm would fight over its pool
 * nodes (the "running the tests while the dev stack is up kills its Slurm"), and the crash
 * clean-up ({@link Leftovers}) may lift Tandem's drains only because no other live stack can own
 * them. The kernel releases the lock when the holder dies, however it dies, so a crashed stack
 * never blocks the next one.
 */
final class StackLock implements AutoCloseable {
  private final FileChannel channel;
  private final FileLock lock;

  private StackLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  static Path file(Path slurmDir) {
    return slurmDir.resolve("tandem-stack.lock");
  }

  /**
   * Takes the lock or throws {@link IllegalStateException} saying who holds it.
   *
   * @param who written into the lock file for the message another stack shows
   */
  static StackLock acquire(Path slurmDir, String who) throws IOException {
    Files.createDirectories(slurmDir);
    Path f = file(slurmDir);
    FileChannel ch =
        FileChannel.open(
            f, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    FileLock l;
    try {
      l = ch.tryLock();
    } catch (OverlappingFileLockException e) {
      l = null; // held by this very JVM: another stack in the same process
    }
    if (l == null) {
      String holder = Files.readString(f, StandardCharsets.UTF_8).trim();
      ch.close();
      throw new IllegalStateException(
          "another Tandem stack uses the local Slurm in "
              + slurmDir
              + " ("
              + (holder.isEmpty() ? "holder unknown" : holder)
              + "). Stop it first, or give this stack its own Slurm: TANDEM_SLURM_DIR plus"
              + " TANDEM_SLURM_PORT_BASE and TANDEM_SLURM_NODE_PORT_BASE (docs/slurm-local.md)");
    }
    ch.truncate(0);
    ch.write(
        StandardCharsets.UTF_8.encode(
            "pid " + ProcessHandle.current().pid() + ", " + who + ", since " + Instant.now()),
        0);
    ch.force(false);
    return new StackLock(ch, l);
  }

  @Override
  public void close() {
    try {
      channel.truncate(0);
      lock.release();
      channel.close();
    } catch (IOException e) {
      // the lock goes with the process anyway
    }
  }
}
