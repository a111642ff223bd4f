package dev.tandem.slurm.fake;

import dev.tandem.slurm.contract.SlurmAuthContract;
import dev.tandem.slurm.contract.SlurmContractTarget;

/** {@link SlurmAuthContract} against the simulated slurmrestd through v0.0.44. */
class SlurmAuthFakeTest extends SlurmAuthContract {
  @Override
  protected SlurmContractTarget target() {
    return FakeSlurmTarget.get();
  }
}
