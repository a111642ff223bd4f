package dev.tandem.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Slurm's command line ({@code sbatch}, {@code scancel}) as the benchmarks run it. */
public final class SlurmCommand {
  private SlurmCommand() {}

  /**
   * Runs {@code cmd} with {@code SLURM_CONF} set; its output (stdout and stderr). An exit code
   * other than 0, or no answer within 30 s, is an {@link IOException} with what it said.
   */
  public static String run(String slurmConf, List<String> cmd)
      throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().put("SLURM_CONF", slurmConf);
    Process p = pb.start();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException(cmd + " timed out");
    }
    String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.exitValue() != 0) {
      throw new IOException(cmd + " failed (" + p.exitValue() + "): " + text);
    }
    return text;
  }

  /**
   * {@code sbatch --parsable -o /dev/null -D /tmp <args>} (the job's output discarded, run from
   * /tmp); the job id.
   */
  public static long sbatch(String slurmConf, List<String> args)
      throws IOException, InterruptedException {
    List<String> cmd =
        new ArrayList<>(List.of("sbatch", "--parsable", "-o", "/dev/null", "-D", "/tmp"));
    cmd.addAll(args);
    return Long.parseLong(run(slurmConf, cmd).trim().split(";")[0]);
  }
}
