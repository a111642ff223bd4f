package dev.tandem.slurm.v0038;

import dev.tandem.slurm.SlurmClient.ApiVersion;
import dev.tandem.slurm.contract.SlurmContractTarget;
import dev.tandem.slurm.local.LocalSlurm;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The contract suite's real target: the local Slurm 22.05 (scripts/slurm-local.sh, started by
 * {@link LocalSlurm} if needed) through the v0.0.38 adapter, detected from the server.
 */
final class LocalSlurmTarget implements SlurmContractTarget {
  static final LocalSlurmTarget INSTANCE = new LocalSlurmTarget();

  private LocalSlurmTarget() {}

  private static LocalSlurm slurm() {
    return LocalSlurm.get();
  }

  @Override
  public Map<String, String> env() {
    return slurm().env();
  }

  @Override
  public ApiVersion apiVersion() {
    return ApiVersion.V0_0_38;
  }

  @Override
  public String slurmVersionPrefix() {
    return "22.05";
  }

  @Override
  public Optional<Duration> expectedKillWait() {
    // scripts/lib/slurm-local-setup.sh sets KillWait=5; the adapter reads it with scontrol.
    return Optional.of(Duration.ofSeconds(5));
  }

  @Override
  public List<String> pool(String prefix) {
    return slurm().pool(prefix);
  }

  @Override
  public void nodeUp(String name) {
    slurm().nodeUp(name);
  }

  @Override
  public void nodeDown(String name) {
    slurm().nodeDown(name);
  }

  @Override
  public void killSlurmd(String name) {
    slurm().killSlurmd(name);
  }

  @Override
  public void dynamicNodeUp(String name, String conf) {
    slurm().dynamicNodeUp(name, conf);
  }

  @Override
  public void dynamicNodeDown(String name) {
    slurm().dynamicNodeDown(name);
  }
}
