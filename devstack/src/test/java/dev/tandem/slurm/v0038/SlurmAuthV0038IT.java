package dev.tandem.slurm.v0038;

import dev.tandem.slurm.contract.SlurmAuthContract;
import dev.tandem.slurm.contract.SlurmContractTarget;

/** {@link SlurmAuthContract} against the real local Slurm 22.05 through v0.0.38. */
class SlurmAuthV0038IT extends SlurmAuthContract {
  @Override
  protected SlurmContractTarget target() {
    return LocalSlurmTarget.INSTANCE;
  }
}
