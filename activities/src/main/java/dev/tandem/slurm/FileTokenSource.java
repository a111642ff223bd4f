package dev.tandem.slurm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * A file holding only the token. It is re-read when its modification time or size changes, and when
 * the cached token has reached its {@code exp} (in case the file was rewritten within the file
 * system's timestamp granularity). Thread-safe.
 */
final class FileTokenSource implements TokenSource {
  private final Path file;
  private final Clock clock;
  private String token;
  private Optional<Instant> expiry = Optional.empty();
  private FileTime readMtime;
  private long readSize = -1;

  FileTokenSource(Path file, Clock clock) {
    this.file = Objects.requireNonNull(file, "file");
    this.clock = clock;
  }

  @Override
  public synchronized String token() {
    FileTime mtime;
    long size;
    try {
      mtime = Files.getLastModifiedTime(file);
      size = Files.size(file);
    } catch (IOException e) {
      throw new SlurmUnauthorizedException(
          "cannot read the Slurm token file " + file + ": " + e.getClass().getSimpleName(), e);
    }
    boolean expired = expiry.isPresent() && !clock.instant().isBefore(expiry.get());
    if (token == null || expired || !mtime.equals(readMtime) || size != readSize) {
      reload(mtime, size);
    }
    if (expiry.isPresent() && !clock.instant().isBefore(expiry.get())) {
      throw new SlurmUnauthorizedException(
          "the Slurm token in " + file + " expired at " + expiry.get() + "; refresh the file");
    }
    return token;
  }

  private void reload(FileTime mtime, long size) {
    String t;
    try {
      t = Files.readString(file, StandardCharsets.UTF_8).trim();
    } catch (IOException e) {
      throw new SlurmUnauthorizedException(
          "cannot read the Slurm token file " + file + ": " + e.getClass().getSimpleName(), e);
    }
    if (t.startsWith("SLURM_JWT=")) {
      // `scontrol token` prints SLURM_JWT=<token>; accept its output written as is.
      t = t.substring("SLURM_JWT=".length()).trim();
    }
    if (t.isEmpty() || t.contains("\n")) {
      throw new SlurmUnauthorizedException(
          "the Slurm token file " + file + " must hold exactly one token");
    }
    token = t;
    expiry = Jwt.expiry(t);
    readMtime = mtime;
    readSize = size;
  }

  @Override
  public synchronized Optional<Instant> expiry() {
    return expiry;
  }

  @Override
  public String toString() {
    return "TokenSource[file=" + file + ", token=<redacted>]";
  }
}
