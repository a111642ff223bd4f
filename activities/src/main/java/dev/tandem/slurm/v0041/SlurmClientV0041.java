package dev.tandem.slurm.v0041;

import dev.tandem.slurm.SlurmTransport;
import dev.tandem.slurm.modern.ModernSlurmClient;

/**
 * slurmrestd openapi v0.0.41 (Slurm 24.05; 24.11 and 25.05 still serve it).
 *
 * <p>Same paths, fields and value shapes as v0.0.44 for everything Tandem uses (the tests check
 * every request against both specs). Differences, handled in {@link ModernSlurmClient}: {@code
 * DELETE /job/{id}} (deprecated here, still served) answers a plain {@code openapi_resp}, an
 * already ended job is a warning and an unknown one HTTP 404 with error 2017; a bad token reaches
 * the client as HTTP 500 with Slurm error 1007 (401 without a token); {@code pings[]} only say
 * {@code pinged: "UP"}; there is no {@code POST /new/node/}, so {@link #createNode} is unsupported,
 * and no {@code POST /reservation}, so neither are reservations. See docs/slurm-versions.md.
 */
public final class SlurmClientV0041 extends ModernSlurmClient {
  public SlurmClientV0041(SlurmTransport transport) {
    super(transport, ApiVersion.V0_0_41);
  }
}
