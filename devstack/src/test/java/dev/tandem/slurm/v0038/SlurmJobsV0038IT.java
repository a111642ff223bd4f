package dev.tandem.slurm.v0038;

import dev.tandem.slurm.contract.SlurmContractTarget;
import dev.tandem.slurm.contract.SlurmJobsContract;

/** {@link SlurmJobsContract} against the real local Slurm 22.05 through v0.0.38. */
class SlurmJobsV0038IT extends SlurmJobsContract {
  @Override
  protected SlurmContractTarget target() {
    return LocalSlurmTarget.INSTANCE;
  }
}
