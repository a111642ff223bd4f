package dev.tandem.slurm.v0038;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.SlurmNotFoundException;
import dev.tandem.slurm.SlurmRejectedException;
import dev.tandem.slurm.SlurmUnauthorizedException;
import dev.tandem.slurm.SlurmUnavailableException;
import dev.tandem.slurm.SlurmUnsupportedException;
import dev.tandem.slurm.TokenSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs a stand-in scontrol (a script that prints what it got) to check argv, env and timeouts. */
class ScontrolTest {
  private static final String TOKEN = "the.secret.token";
  @TempDir Path tmp;

  private Path fake(String body) throws Exception {
    Path f = tmp.resolve("scontrol");
    Files.writeString(f, "#!/bin/sh\n" + body + "\n");
    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rwx------"));
    return f;
  }

  private Scontrol scontrol(Path bin, Duration timeout) {
    return new Scontrol(bin, Path.of("/etc/x/slurm.conf"), TokenSource.fixed(TOKEN), timeout);
  }

  @Test
  void passesAnArgumentVectorAndTheTokenInTheEnvironment() throws Exception {
    Path bin =
        fake(
            "for a in \"$@\"; do echo \"arg[$a]\"; done; echo \"jwt=$SLURM_JWT conf=$SLURM_CONF\"");
    Scontrol.Result r =
        scontrol(bin, Duration.ofSeconds(5))
            .run("update", "NodeName=n1", "State=DRAIN", "Reason=tandem:manual: a b; $(rm -rf /)");
    assertEquals(0, r.exitCode());
    assertEquals(
        "arg[update]\narg[NodeName=n1]\narg[State=DRAIN]\narg[Reason=tandem:manual: a b; $(rm -rf /)]\n"
            + "jwt="
            + TOKEN
            + " conf=/etc/x/slurm.conf",
        r.output());
  }

  @Test
  void mapsFailuresToTypedExceptions() throws Exception {
    Scontrol s =
        scontrol(
            fake("echo 'slurm_update error: Invalid node name specified' >&2; exit 1"),
            Duration.ofSeconds(5));
    SlurmNotFoundException e =
        assertThrows(
            SlurmNotFoundException.class, () -> s.updateNode("nx", "State=DRAIN", "Reason=r"));
    assertTrue(e.getMessage().contains("NodeName=nx State=DRAIN"), e.getMessage());
    assertFalse(e.getMessage().contains(TOKEN));
  }

  @Test
  void errorTextTable() {
    assertInstanceOf(
        SlurmUnavailableException.class,
        Scontrol.toException(
            "slurm_update error: Unable to contact slurm controller (connect failure)", "c"));
    assertInstanceOf(
        SlurmUnauthorizedException.class,
        Scontrol.toException("slurm_update error: Zero Bytes were transmitted or received", "c"));
    assertInstanceOf(
        SlurmUnauthorizedException.class, Scontrol.toException("Invalid user id", "c"));
    SlurmRejectedException r =
        assertInstanceOf(
            SlurmRejectedException.class,
            Scontrol.toException("slurm_update error: Invalid node state specified", "c"));
    assertTrue(r.slurmMessage().contains("Invalid node state"));
    assertInstanceOf(SlurmRejectedException.class, Scontrol.toException("", "c"));
  }

  @Test
  void aHangingScontrolIsKilledAndUnavailable() throws Exception {
    Scontrol s = scontrol(fake("exec sleep 30"), Duration.ofMillis(300));
    long t0 = System.nanoTime();
    assertThrows(SlurmUnavailableException.class, () -> s.run("ping"));
    assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(10).toNanos());
  }

  @Test
  void missingBinaryIsUnsupported() {
    assertThrows(
        SlurmUnsupportedException.class,
        () -> scontrol(tmp.resolve("nope"), Duration.ofSeconds(1)).run("ping"));
    Scontrol none = new Scontrol(null, null, TokenSource.fixed(TOKEN), Duration.ofSeconds(1));
    assertFalse(none.configured());
    assertThrows(SlurmUnsupportedException.class, () -> none.run("ping"));
    assertFalse(none.toString().contains(TOKEN));
  }
}
