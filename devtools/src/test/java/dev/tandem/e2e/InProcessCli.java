package dev.tandem.e2e;

import dev.tandem.cli.TandemCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code tandem ...} run in this JVM against the stack's Temporal, as a user would type it. Retried
 * (at most 8 times, 2 s apart) while it exits 1, which it does when no worker answers right after a
 * kill; a drain or undrain sent twice is harmless.
 */
final class InProcessCli {
  private final String temporalAddress;

  InProcessCli(String temporalAddress) {
    this.temporalAddress = temporalAddress;
  }

  /** Runs the command until it exits 0; returns the first line it printed. */
  String run(String... args) throws InterruptedException {
    List<String> all = new ArrayList<>(List.of(args));
    all.add("--address");
    all.add(temporalAddress);
    String last = "";
    for (int attempt = 1; attempt <= 8; attempt++) {
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      int code =
          TandemCli.run(new PrintWriter(out), new PrintWriter(err), all.toArray(String[]::new));
      if (code == 0) {
        return out.toString().lines().findFirst().orElse("");
      }
      last = "exit " + code + ": " + err;
      if (code != 1) {
        break;
      }
      Thread.sleep(2000);
    }
    throw new AssertionError("tandem " + String.join(" ", args) + " failed: " + last);
  }
}
