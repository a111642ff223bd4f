package dev.tandem.slurm.v0038;

import dev.tandem.slurm.Jwt;
import dev.tandem.slurm.Reservations;
import dev.tandem.slurm.SlurmException;
import dev.tandem.slurm.SlurmNotFoundException;
import dev.tandem.slurm.SlurmRejectedException;
import dev.tandem.slurm.SlurmUnauthorizedException;
import dev.tandem.slurm.SlurmUnavailableException;
import dev.tandem.slurm.SlurmUnsupportedException;
import dev.tandem.slurm.TokenSource;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs {@code scontrol}, the only way to change node state on Slurm 22.05 (its REST API has no node
 * update). Authenticates with the same token as the REST calls ({@code SLURM_JWT} in the child's
 * environment; no munge needed) and finds slurmctld through {@code SLURM_CONF}. Always an argument
 * vector, never a shell; every run is bounded in time. The token is never in the arguments, the
 * logs or an exception message.
 */
class Scontrol {
  /** What one run printed and returned. */
  record Result(int exitCode, String output) {}

  private final Path binary;
  private final Path slurmConf;
  private final TokenSource tokens;
  private final Duration timeout;

  Scontrol(Path binary, Path slurmConf, TokenSource tokens, Duration timeout) {
    this.binary = binary;
    this.slurmConf = slurmConf;
    this.tokens = tokens;
    this.timeout = timeout;
  }

  boolean configured() {
    return binary != null;
  }

  /** Runs {@code scontrol args...}; throws only when it could not run or did not finish. */
  Result run(String... args) {
    if (binary == null) {
      throw new SlurmUnsupportedException(
          "Slurm 22.05 changes node state only through scontrol, and no scontrol is configured"
              + " (SCONTROL_BIN)");
    }
    List<String> cmd = new ArrayList<>();
    cmd.add(binary.toString());
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    Map<String, String> env = pb.environment();
    env.put("SLURM_JWT", tokens.token());
    if (slurmConf != null) {
      env.put("SLURM_CONF", slurmConf.toString());
    }
    String what = "scontrol " + String.join(" ", args);
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      throw new SlurmUnsupportedException(
          "cannot run "
              + binary
              + " (Slurm 22.05 needs scontrol for node state): "
              + e.getMessage(),
          e);
    }
    try {
      p.getOutputStream().close();
    } catch (IOException e) {
      // scontrol reads no input; a failed close changes nothing.
    }
    CompletableFuture<String> out =
        CompletableFuture.supplyAsync(() -> readAll(p.getInputStream()));
    try {
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        throw new SlurmUnavailableException(what + " did not finish within " + timeout);
      }
      return new Result(p.exitValue(), out.get(2, TimeUnit.SECONDS).trim());
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new SlurmUnavailableException("interrupted while running " + what, e);
    } catch (ExecutionException | TimeoutException e) {
      throw new SlurmUnavailableException("could not read the output of " + what, e);
    }
  }

  private static String readAll(InputStream in) {
    try (in) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  /** {@code scontrol update NodeName=node settings...}, errors mapped to typed exceptions. */
  void updateNode(String node, String... settings) {
    String[] args = new String[settings.length + 2];
    args[0] = "update";
    args[1] = "NodeName=" + node;
    System.arraycopy(settings, 0, args, 2, settings.length);
    Result r = run(args);
    if (r.exitCode() != 0) {
      throw toException(r.output(), "scontrol update NodeName=" + node + " " + settings[0]);
    }
  }

  /**
   * {@code scontrol delete NodeName=node}: only for dynamic nodes (22.05 deletes declared ones
   * too). A node Slurm no longer knows is fine (idempotent).
   */
  void deleteNode(String node) {
    Result r = run("delete", "NodeName=" + node);
    if (r.exitCode() != 0) {
      SlurmException e = toException(r.output(), "scontrol delete NodeName=" + node);
      if (e instanceof SlurmNotFoundException) {
        return; // gone already
      }
      throw e;
    }
  }

  /**
   * {@code scontrol create reservation ReservationName=name StartTime=now Duration=<min> Nodes=a,b
   * Users=<token's user> Flags=MAINT,IGNORE_JOBS}; a duplicate name is fine (idempotent).
   */
  void createReservation(String name, List<String> nodes, Duration duration) {
    Reservations.checkName(name);
    List<String> ns = Reservations.checkNodes(nodes);
    long minutes = Reservations.minutes(duration);
    String user =
        Jwt.user(tokens.token())
            .orElseThrow(
                () ->
                    new SlurmUnauthorizedException(
                        "create reservation " + name + ": the Slurm token names no user (sun)"));
    Result r =
        run(
            "create",
            "reservation",
            "ReservationName=" + name,
            "StartTime=now",
            "Duration=" + minutes,
            "Nodes=" + String.join(",", ns),
            "Users=" + user,
            "Flags=" + String.join(",", Reservations.FLAGS));
    if (r.exitCode() != 0) {
      if (r.output().toLowerCase(Locale.ROOT).contains("duplicate reservation name")) {
        return; // created by an earlier (retried) call
      }
      throw toException(r.output(), "scontrol create reservation " + name);
    }
  }

  /** {@code scontrol delete ReservationName=name}; one that does not exist is fine. */
  void deleteReservation(String name) {
    Reservations.checkName(name);
    Result r = run("delete", "ReservationName=" + name);
    if (r.exitCode() != 0) {
      if (r.output().toLowerCase(Locale.ROOT).contains("requested reservation is invalid")) {
        return; // gone already
      }
      throw toException(r.output(), "scontrol delete ReservationName=" + name);
    }
  }

  private static final Pattern KILL_WAIT = Pattern.compile("(?m)^KillWait\\s*=\\s*(\\d+)\\s*sec");

  /**
   * {@code KillWait} from {@code scontrol show config} (slurmctld's running value, not the file's).
   * Empty when the output has no such line; a failed run throws the mapped exception.
   */
  Optional<Duration> killWait() {
    Result r = run("show", "config");
    if (r.exitCode() != 0) {
      throw toException(r.output(), "scontrol show config");
    }
    return parseKillWait(r.output());
  }

  static Optional<Duration> parseKillWait(String config) {
    Matcher m = KILL_WAIT.matcher(config);
    return m.find()
        ? Optional.of(Duration.ofSeconds(Long.parseLong(m.group(1))))
        : Optional.empty();
  }

  /** Maps scontrol's error text (it has no error numbers on its output) to a typed exception. */
  static SlurmException toException(String output, String context) {
    String msg = output.isBlank() ? "(no output)" : output.replaceAll("\\s+", " ").trim();
    String l = msg.toLowerCase(Locale.ROOT);
    if (l.contains("invalid node name")) {
      return new SlurmNotFoundException(context + ": " + msg);
    }
    if (l.contains("unable to contact slurm controller")
        || l.contains("connection refused")
        || l.contains("socket timed out")
        || l.contains("connect failure")
        || l.contains("communication connection failure")) {
      return new SlurmUnavailableException(context + ": " + msg);
    }
    if (l.contains("zero bytes were transmitted")
        || l.contains("authentication")
        || l.contains("invalid user id")
        || l.contains("access/permission denied")) {
      // A bad/expired token makes slurmctld drop the connection ("Zero Bytes ..."); a token of a
      // non-operator user gets "Invalid user id".
      return new SlurmUnauthorizedException(
          context + ": " + msg + " (bad or expired token, or the token's user is no operator)");
    }
    return new SlurmRejectedException(0, msg, context);
  }

  @Override
  public String toString() {
    return "Scontrol[" + binary + ", conf=" + slurmConf + ", " + tokens + "]";
  }
}
