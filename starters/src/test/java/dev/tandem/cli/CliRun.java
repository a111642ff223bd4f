package dev.tandem.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;

/** One run of the {@code tandem} command line in-process: exit code, output and how long. */
record CliRun(int code, String out, String err, Duration took) {
  /**
   * How long a command may take when no worker answers: well below the ~60 s the commands used to
   * hang, with room for a loaded machine.
   */
  static final Duration FAST = Duration.ofSeconds(10);

  static CliRun of(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    long start = System.nanoTime();
    int code = TandemCli.run(new PrintWriter(out), new PrintWriter(err), args);
    return new CliRun(
        code, out.toString(), err.toString(), Duration.ofNanos(System.nanoTime() - start));
  }

  /** Runs {@code tandem args...} and checks that it answered within {@link #FAST}. */
  static CliRun fast(String... args) {
    CliRun r = of(args);
    assertTrue(r.took().compareTo(FAST) < 0, "too slow: " + r);
    return r;
  }

  /** {@code args} followed by {@code more}: a command, then the options every run adds. */
  static String[] concat(String[] args, String... more) {
    String[] all = new String[args.length + more.length];
    System.arraycopy(args, 0, all, 0, args.length);
    System.arraycopy(more, 0, all, args.length, more.length);
    return all;
  }

  /** The error output's first line: picocli's or Tandem's message, before any usage text. */
  String firstErrorLine() {
    return err.lines().findFirst().orElse("");
  }

  @Override
  public String toString() {
    return "exit " + code + " after " + took.toMillis() + " ms\nout: " + out + "\nerr: " + err;
  }
}
