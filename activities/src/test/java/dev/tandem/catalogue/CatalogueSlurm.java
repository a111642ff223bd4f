package dev.tandem.catalogue;

import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmClientConfig;
import dev.tandem.slurm.TokenSource;
import dev.tandem.slurm.testing.FakeSlurmTransport;
import dev.tandem.slurm.v0038.SlurmClientV0038;
import dev.tandem.slurm.v0044.SlurmClientV0044;
import java.net.URI;
import java.nio.file.Path;

/** Adapters over a scripted transport, as the worker builds them, for the catalogue tests. */
final class CatalogueSlurm {
  private CatalogueSlurm() {}

  static final String B38 = "/slurm/v0.0.38";
  static final String B44 = "/slurm/v0.0.44";

  /** The 22.05 adapter; its scontrol does not exist (node changes would fail, none is expected). */
  static SlurmClient v38(FakeSlurmTransport fake) {
    return new SlurmClientV0038(
        fake,
        new SlurmClientConfig(
            URI.create("http://127.0.0.1:1"),
            SlurmClient.ApiVersion.V0_0_38,
            "root",
            TokenSource.fixed("t"),
            null,
            null,
            Path.of("/nonexistent/scontrol"),
            null,
            null));
  }

  static SlurmClient v44(FakeSlurmTransport fake) {
    return new SlurmClientV0044(fake);
  }
}
