package dev.tandem.slurm.fake;

import dev.tandem.slurm.contract.SlurmContractTarget;
import dev.tandem.slurm.contract.SlurmJobsContract;

/** {@link SlurmJobsContract} against the simulated slurmrestd through v0.0.44. */
class SlurmJobsFakeTest extends SlurmJobsContract {
  @Override
  protected SlurmContractTarget target() {
    return FakeSlurmTarget.get();
  }
}
