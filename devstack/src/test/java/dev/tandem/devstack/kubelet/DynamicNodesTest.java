package dev.tandem.devstack.kubelet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DynamicNodesTest {
  @TempDir Path dir;

  @Test
  void gresOfReadsTheGresSettingOfAConfLine() {
    assertEquals("gpu:h100:8", DynamicNodes.gresOf("Feature=h100,ib Gres=gpu:h100:8 Weight=7"));
    assertEquals("gpu:2,nvme:1", DynamicNodes.gresOf("gres=gpu:2,nvme:1"));
    assertEquals("", DynamicNodes.gresOf("Feature=a"));
    assertEquals("", DynamicNodes.gresOf(null));
  }

  @Test
  void eachGpuTypeGetsItsOwnFakeDeviceFiles() throws IOException {
    String conf = DynamicNodes.gresConf("x-0", "gpu:h100:2,gpu:a100:1,nvme:3,gpu:4", dir);
    assertEquals(
        "# Written by the local kubelet for dynamic node x-0\n"
            + "AutoDetect=off\n"
            + "NodeName=x-0 Name=gpu Type=h100 File="
            + dir.resolve("gpu")
            + "[0-1]\n"
            + "NodeName=x-0 Name=gpu Type=a100 File="
            + dir.resolve("gpu")
            + "2\n"
            + "NodeName=x-0 Name=nvme Count=3\n"
            + "NodeName=x-0 Name=gpu File="
            + dir.resolve("gpu")
            + "[3-6]\n",
        conf);
    for (int i = 0; i <= 6; i++) {
      assertTrue(Files.isSymbolicLink(dir.resolve("gpu" + i)), "gpu" + i);
    }
    assertTrue(Files.notExists(dir.resolve("gpu7")));
  }

  @Test
  void badOrTooLargeGresIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> DynamicNodes.gresConf("x", "gpu:abc", dir));
    assertThrows(
        IllegalArgumentException.class, () -> DynamicNodes.gresConf("x", "gpu:h100:65", dir));
  }
}
