package dev.tandem.slurm.v0044;

import dev.tandem.slurm.SlurmTransport;
import dev.tandem.slurm.modern.ModernSlurmClient;

/**
 * slurmrestd openapi v0.0.44 (Slurm 25.11): what production clusters run.
 *
 * <p>Behaviour specific to this version, all handled in {@link ModernSlurmClient}: {@code DELETE
 * /job/{id}} answers 200 with a {@code status} list (per-job errors inside, an empty list is
 * success), and HTTP 500 with Slurm error 1 when slurmctld did not answer (a Slurm bug, {@code
 * ModernCancel}); a bad token is HTTP 511 (Slurm error 1007) except on {@code /ping/}, which
 * answers 200 with {@code responding:false} ({@code ModernPing} then probes); an unknown job is
 * 404; {@code POST /new/node/} creates dynamic nodes (and deletes a node whose name it is given
 * again, so the name is looked up first); the job description has no {@code exclusive} field
 * (Tandem sends {@code shared:["none"]}, valid in v0.0.41 too). See docs/slurm-versions.md.
 */
public final class SlurmClientV0044 extends ModernSlurmClient {
  public SlurmClientV0044(SlurmTransport transport) {
    super(transport, ApiVersion.V0_0_44);
  }

  /** {@code POST /new/node/} with {@code {"node_conf": "NodeName=..."}} (Slurm 25.11). */
  @Override
  protected boolean servesNewNode() {
    return true;
  }

  /** {@code POST /reservation}, {@code DELETE /reservation/{name}} (see ModernReservations). */
  @Override
  protected boolean servesReservations() {
    return true;
  }
}
