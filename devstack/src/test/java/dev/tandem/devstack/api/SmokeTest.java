package dev.tandem.devstack.api;

import io.fabric8.kubernetes.api.model.*;
import org.junit.jupiter.api.Test;

class SmokeTest {
  @Test
  void smoke() throws Exception {
    try (LocalApiServer s = LocalApiServer.start(0)) {
      var c = s.client();
      c.pods()
          .resource(
              new PodBuilder()
                  .withNewMetadata()
                  .withName("p1")
                  .withLabels(java.util.Map.of("a", "b"))
                  .endMetadata()
                  .withNewSpec()
                  .addNewContainer()
                  .withName("c")
                  .withImage("busybox")
                  .endContainer()
                  .endSpec()
                  .build())
          .create();
      System.out.println(c.pods().list().getItems());
      System.out.println(c.pods().withLabelIn("a", "x").list().getItems().size());
      s.writeKubeconfig(java.nio.file.Path.of("/tmp/kc-smoke"));
      Process p =
          new ProcessBuilder(
                  "kubectl",
                  "--kubeconfig",
                  "/tmp/kc-smoke",
                  "--cache-dir",
                  "/tmp/kc-cache",
                  "get",
                  "pods,nodes,ns",
                  "-o",
                  "wide")
              .redirectErrorStream(true)
              .start();
      System.out.println(new String(p.getInputStream().readAllBytes()));
    }
  }
}
