package dev.tandem.slurm.modern;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.slurm.SlurmJob.Request;
import org.junit.jupiter.api.Test;

/**
 * What a v0.0.41/v0.0.44 job asks for ({@link ModernParsers#job}): {@code node_count} and {@code
 * minimum_cpus_per_node} are no-val structs, {@code tres_per_node} {@code gres/gpu:2}. A value of
 * the wrong shape reads as unknown, never as an error.
 */
class ModernJobRequestTest {
  private static final String SET = "{\"set\":true,\"infinite\":false,\"number\":%s}";

  private static Request read(String nodeCount, String minCpus, String tres, String features) {
    String json =
        "{\"job_id\":7,\"job_state\":[\"PENDING\"],\"node_count\":%s,".formatted(nodeCount)
            + "\"minimum_cpus_per_node\":%s,\"tres_per_node\":%s,\"features\":%s}"
                .formatted(minCpus, tres, features);
    try {
      return ModernParsers.job((ObjectNode) Json.MAPPER.readTree(json)).request();
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void setNumbersAndTresAreRead() {
    assertEquals(
        new Request(2, 8, 0, "gpu:2", "h100&ib"),
        read(SET.formatted(2), SET.formatted(8), "\"gres/gpu:2\"", "\"h100&ib\""));
    assertEquals(
        new Request(1, 4, 0, "gpu:h100:2,nic:1", null),
        read(SET.formatted(1), SET.formatted(4), "\"gres/gpu:h100=2,gres/nic=1\"", "\"\""));
    assertEquals(
        new Request(3, 2, 0, null, null), read("3", "2", "\"\"", "null"), "bare numbers count too");
  }

  @Test
  void memoryIsPerNodeOrPerCpuTimesTheCpus() throws Exception {
    String perNode =
        "{\"job_id\":7,\"job_state\":[\"PENDING\"],\"node_count\":%s,".formatted(SET.formatted(1))
            + "\"minimum_cpus_per_node\":%s,\"memory_per_node\":%s,\"memory_per_cpu\":%s}"
                .formatted(SET.formatted(4), SET.formatted(5000), "{\"set\":false,\"number\":0}");
    assertEquals(
        new Request(1, 4, 5000, null, null),
        ModernParsers.job((ObjectNode) Json.MAPPER.readTree(perNode)).request());
    String perCpu =
        "{\"job_id\":7,\"job_state\":[\"PENDING\"],\"node_count\":%s,".formatted(SET.formatted(1))
            + "\"minimum_cpus_per_node\":%s,\"memory_per_node\":%s,\"memory_per_cpu\":%s}"
                .formatted(SET.formatted(2), "{\"set\":false,\"number\":0}", SET.formatted(3000));
    assertEquals(
        new Request(1, 2, 6000, null, null),
        ModernParsers.job((ObjectNode) Json.MAPPER.readTree(perCpu)).request());
  }

  @Test
  void unsetInfiniteAndOddValuesAreUnknown() {
    String unset = "{\"set\":false,\"infinite\":false,\"number\":5}";
    String infinite = "{\"set\":true,\"infinite\":true,\"number\":5}";
    assertEquals(Request.UNKNOWN, read(unset, infinite, "\"\"", "\"\""));
    assertEquals(Request.UNKNOWN, read("\"2\"", "1.5", "null", "null"), "text and fractions");
    assertEquals(
        Request.UNKNOWN, read(SET.formatted(0), SET.formatted(-1), "\"\"", "\"\""), "not > 0");
    assertEquals(
        Request.UNKNOWN,
        read(SET.formatted("4294967296"), "123456789012345678901234567890", "\"\"", "\"\""),
        "beyond an int, or a long");
    assertEquals(
        Request.UNKNOWN,
        read("{\"set\":true}", "{\"set\":true,\"number\":\"8\"}", "\"license/x=1\"", "\"\""));
    assertEquals(Request.UNKNOWN, read("[]", "{}", "\" \"", "\" \""));
  }

  @Test
  void missingFieldsAreUnknown() throws Exception {
    ObjectNode j = (ObjectNode) Json.MAPPER.readTree("{\"job_id\":7,\"job_state\":[\"RUNNING\"]}");
    assertEquals(Request.UNKNOWN, ModernParsers.job(j).request());
  }
}
