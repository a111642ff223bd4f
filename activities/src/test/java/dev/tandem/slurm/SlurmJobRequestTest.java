package dev.tandem.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.tandem.slurm.SlurmJob.Request;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link SlurmJob.Request}: Slurm's {@code tres_per_node} forms in slurm.conf form, and defaults.
 */
class SlurmJobRequestTest {

  @Test
  void tresPerNodeOfEveryReleaseReadsInSlurmConfForm() {
    assertEquals("gpu:2", Request.gresFromTres("gres:gpu:2"), "22.05");
    assertEquals("gpu:2", Request.gresFromTres("gres/gpu:2"), "24.05+ from sbatch --gres");
    assertEquals("gpu:2", Request.gresFromTres("gres/gpu=2"), "TRES=# as the specs describe it");
    assertEquals("gpu:h100:2", Request.gresFromTres("gres/gpu:h100=2"));
    assertEquals("gpu:h100:2,nic:1", Request.gresFromTres("gres/gpu:h100:2,gres/nic:1"));
    assertEquals("gpu:2,nic:1", Request.gresFromTres(" gres:gpu:2 , gres:nic:1 "));
    assertEquals("gpu", Request.gresFromTres("gres/gpu"), "no count means one; kept as given");
    assertEquals("gpu:2", Request.gresFromTres("gpu:2"), "already in slurm.conf form");
  }

  @Test
  void noGresIsNullAndOtherTresTypesAreLeftOut() {
    assertNull(Request.gresFromTres(null));
    assertNull(Request.gresFromTres(""));
    assertNull(Request.gresFromTres(" , ,"));
    assertNull(Request.gresFromTres("license/matlab=1"));
    assertEquals("gpu:2", Request.gresFromTres("gres/gpu=2,license/matlab=1"));
  }

  @Test
  void negativeCountsAndBlankTextsReadAsUnknown() {
    assertEquals(Request.UNKNOWN, new Request(-1, -8, -5, " ", ""));
    Request r = new Request(2, 8, 0, "gpu:2", "h100&ib");
    assertEquals(2, r.nodes());
    assertEquals(8, r.cpusPerNode());
    assertEquals("gpu:2", r.gresPerNode());
    assertEquals("h100&ib", r.features());
  }

  @Test
  void memoryPerNodeIsTheNodesOrTheCpusTimesTheirsAndFlagBitsAreUnknown() {
    assertEquals(5000, Request.memoryPerNode(5000, 0, 4));
    assertEquals(12000, Request.memoryPerNode(0, 3000, 4));
    assertEquals(0, Request.memoryPerNode(0, 3000, 0), "CPUs unknown");
    assertEquals(0, Request.memoryPerNode(0, 0, 4), "not asked");
    assertEquals(0, Request.memoryPerNode(-2, -2, 4));
    assertEquals(0, Request.memoryPerNode(0xfffffffffffffffeL, 0, 4), "NO_VAL64");
    assertEquals(0, Request.memoryPerNode(0, 1L << 61, 4), "beyond a long when multiplied");
  }

  @Test
  void aJobWithoutARequestHasTheUnknownOne() {
    SlurmJob j =
        new SlurmJob(
            1, "j", null, "PENDING", Set.of(), "None", "", List.of(), "low", null, null, null, 0,
            null, null, null, null, null, null, null);
    assertEquals(Request.UNKNOWN, j.request());
  }
}
