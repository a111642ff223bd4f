package dev.tandem.slurm.fake;

import dev.tandem.slurm.contract.PlaceholderJobsContract;
import dev.tandem.slurm.contract.SlurmContractTarget;

/** {@link PlaceholderJobsContract} against the simulated slurmrestd through v0.0.44. */
class PlaceholderJobsFakeTest extends PlaceholderJobsContract {
  @Override
  protected SlurmContractTarget target() {
    return FakeSlurmTarget.get();
  }
}
