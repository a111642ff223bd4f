package dev.tandem.slurm.fake;

import dev.tandem.slurm.contract.SlurmContractTarget;
import dev.tandem.slurm.contract.SlurmNodesContract;

/** {@link SlurmNodesContract} against the simulated slurmrestd through v0.0.44. */
class SlurmNodesFakeTest extends SlurmNodesContract {
  @Override
  protected SlurmContractTarget target() {
    return FakeSlurmTarget.get();
  }
}
