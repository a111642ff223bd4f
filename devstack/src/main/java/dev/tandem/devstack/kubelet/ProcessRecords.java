package dev.tandem.devstack.kubelet;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The container processes a kubelet started, one small file each in a directory, so that a later
 * kubelet can stop what a crashed one left running (its processes outlive a SIGKILLed JVM).
 *
 * <p>A record holds the pid, the process's start time and its argv. A process counts as the
 * recorded one only if all three still match ({@link Entry#live()}): a pid reused by another
 * process after a reboot or a wrap-around never does, so nothing is ever signalled that this
 * kubelet did not start. {@link #launcher} wraps a launcher so that every process is recorded when
 * it starts and forgotten when it ends.
 */
public final class ProcessRecords {
  private static final Logger log = LoggerFactory.getLogger(ProcessRecords.class);
  private static final String SUFFIX = ".proc";

  /** Start times read twice may differ by the clock tick used to compute them. */
  private static final Duration START_TOLERANCE = Duration.ofSeconds(1);

  /** One recorded process. */
  public record Entry(
      Path file,
      long pid,
      Instant started,
      String namespace,
      String pod,
      String container,
      List<String> command) {

    /** The process, if it still runs and is the one recorded (same start time and argv). */
    public Optional<ProcessHandle> live() {
      Optional<ProcessHandle> h = ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
      if (h.isEmpty()) {
        return Optional.empty();
      }
      ProcessHandle.Info info = h.get().info();
      Optional<Instant> start = info.startInstant();
      if (start.isEmpty()
          || Duration.between(start.get(), started).abs().compareTo(START_TOLERANCE) > 0) {
        return Optional.empty();
      }
      List<String> args = info.arguments().map(Arrays::asList).orElse(null);
      if (args == null || !args.equals(command.subList(1, command.size()))) {
        return Optional.empty();
      }
      return h;
    }
  }

  private final Path dir;

  public ProcessRecords(Path dir) {
    this.dir = dir;
  }

  public Path dir() {
    return dir;
  }

  /** A launcher that records every process {@code inner} starts and forgets it when it ends. */
  public ProcessLauncher launcher(ProcessLauncher inner) {
    return spec -> {
      RunningProcess p = inner.launch(spec);
      Path file = add(spec, p.pid());
      if (file != null) {
        CompletableFuture<Integer> exit = p.exit();
        exit.whenComplete((code, err) -> forget(file, p.pid()));
      }
      return p;
    };
  }

  /** Records a started process; null (and a warning) if it cannot be written. */
  Path add(ProcessSpec spec, long pid) {
    Optional<Instant> started = ProcessHandle.of(pid).flatMap(h -> h.info().startInstant());
    if (started.isEmpty()) {
      return null; // already gone, or not a real process (test launchers)
    }
    Properties p = new Properties();
    p.setProperty("pid", Long.toString(pid));
    p.setProperty("started", started.get().toString());
    p.setProperty("namespace", spec.namespace());
    p.setProperty("pod", spec.pod());
    p.setProperty("container", spec.container());
    p.setProperty("command", String.join("\u0000", spec.command()));
    Path file = dir.resolve(spec.namespace() + "_" + spec.pod() + "_" + pid + SUFFIX);
    try {
      Files.createDirectories(dir);
      Path tmp = dir.resolve(file.getFileName() + ".tmp");
      try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
        p.store(w, "a container process started by the local kubelet");
      }
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      return file;
    } catch (IOException e) {
      log.warn("cannot record process {} of pod {}: {}", pid, spec.pod(), e.toString());
      return null;
    }
  }

  /** Drops a record (its process ended or was stopped). */
  public void forget(Path file, long pid) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      log.warn("cannot remove the record of process {}: {}", pid, e.toString());
    }
  }

  /** Every record in the directory; unreadable files are skipped with a warning. */
  public List<Entry> list() {
    List<Entry> out = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return out;
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + SUFFIX)) {
      for (Path f : files) {
        read(f).ifPresent(out::add);
      }
    } catch (IOException e) {
      log.warn("cannot list process records in {}: {}", dir, e.toString());
    }
    out.sort(java.util.Comparator.comparing(Entry::pod).thenComparing(Entry::pid));
    return out;
  }

  private static Optional<Entry> read(Path f) {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(f, StandardCharsets.UTF_8)) {
      p.load(r);
      return Optional.of(
          new Entry(
              f,
              Long.parseLong(p.getProperty("pid")),
              Instant.parse(p.getProperty("started")),
              p.getProperty("namespace"),
              p.getProperty("pod"),
              p.getProperty("container"),
              List.of(p.getProperty("command").split("\u0000"))));
    } catch (IOException | RuntimeException e) {
      log.warn("ignoring unreadable process record {}: {}", f, e.toString());
      return Optional.empty();
    }
  }
}
