package dev.tandem.slurm.v0038;

import dev.tandem.slurm.contract.SlurmContractTarget;
import dev.tandem.slurm.contract.SlurmNodesContract;

/** {@link SlurmNodesContract} against the real local Slurm 22.05 through v0.0.38. */
class SlurmNodesV0038IT extends SlurmNodesContract {
  @Override
  protected SlurmContractTarget target() {
    return LocalSlurmTarget.INSTANCE;
  }
}
