package dev.tandem.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;

/** One run of the {@code tandem} command line in-process: exit code, output and how long. */
record CliRun(int code, String out, String err, Duration took) {
  static CliRun of(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    long start = System.nanoTime();
    int code = TandemCli.run(new PrintWriter(out), new PrintWriter(err), args);
    return new CliRun(
        code, out.toString(), err.toString(), Duration.ofNanos(System.nanoTime() - start));
  }

  @Override
  public String toString() {
    return "exit " + code + " after " + took.toMillis() + " ms\nout: " + out + "\nerr: " + err;
  }
}
