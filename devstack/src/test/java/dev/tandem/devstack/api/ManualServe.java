package dev.tandem.devstack.api;

import org.junit.jupiter.api.Test;

/** Not a test: run with -Dtest=ManualServe -Dmanual=true to poke a server with kubectl. */
class ManualServe {
  @Test
  void serve() throws Exception {
    if (!Boolean.getBoolean("manual")) {
      return;
    }
    try (LocalApiServer s = LocalApiServer.start(18080)) {
      s.installCrd("test-crds/nodesets.tandem.dev.yaml");
      s.writeKubeconfig(java.nio.file.Path.of("/tmp/kc-manual"));
      var k =
          dev.tandem.devstack.kubelet.LocalKubelet.start(
              s.newClient(),
              dev.tandem.devstack.kubelet.KubeletConfig.defaults()
                  .withSlurmEnvFile(java.nio.file.Path.of("/tmp/none/slurm.env"))
                  .withLogDir(java.nio.file.Path.of("/tmp/kubelet-logs")));
      Thread.sleep(Long.getLong("serveMillis", 600_000));
      k.close();
    }
  }
}
