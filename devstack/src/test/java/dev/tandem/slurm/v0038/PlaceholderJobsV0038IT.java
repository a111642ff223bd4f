package dev.tandem.slurm.v0038;

import dev.tandem.slurm.contract.PlaceholderJobsContract;
import dev.tandem.slurm.contract.SlurmContractTarget;

/** {@link PlaceholderJobsContract} against the real local Slurm 22.05 through v0.0.38. */
class PlaceholderJobsV0038IT extends PlaceholderJobsContract {
  @Override
  protected SlurmContractTarget target() {
    return LocalSlurmTarget.INSTANCE;
  }
}
