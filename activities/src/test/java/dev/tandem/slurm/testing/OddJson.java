package dev.tandem.slurm.testing;

import static dev.tandem.slurm.testing.JobListingVariants.bytes;

import java.util.List;

/** The odd values {@link JobListingVariants} puts into job answers. */
final class OddJson {
  private OddJson() {}

  /** Values for the fields Tandem reads, as raw JSON text. */
  static final List<String> VALUES =
      List.of(
          "null",
          "\"\"",
          "\"x\"",
          "\"PENDING\"",
          "\"running\"",
          "\"CANCELLED\"",
          "\"n[1-3]\"",
          "\"n[1-\"",
          "\"n1]\"",
          "\"(null)\"",
          "\" n1 , n2 \"",
          "0",
          "-1",
          "1",
          "42",
          "-0",
          "2147483647",
          "2147483648",
          "-2147483648",
          "-2147483649",
          "4294967294",
          "4294967295",
          "9223372036854775807",
          "9223372036854775808",
          "-9223372036854775809",
          "123456789012345678901234567890",
          "1.5",
          "-0.5",
          "1e2",
          "1E2",
          "2.5e9",
          "1e19",
          "9.223372036854776E18",
          "1e400",
          "-1e400",
          "0.0",
          "-0.0",
          "768",
          "15",
          "true",
          "false",
          "{}",
          "{\"a\":1}",
          "[]",
          "[\"RUNNING\"]",
          "[\"COMPLETING\",\"CANCELLED\"]",
          "[\"PENDING\",\"REQUEUED\"]",
          "[1,2]",
          "{\"set\":true,\"infinite\":false,\"number\":5}",
          "{\"set\":false,\"infinite\":false,\"number\":5}",
          "{\"set\":true,\"infinite\":true,\"number\":0}",
          "{\"set\":true,\"number\":1.5e3}",
          "{\"status\":[\"SIGNALED\"],\"signal\":{\"id\":9}}",
          "{\"status\":[\"EXITED\"],\"return_code\":3}",
          "{\"status\":[\"PENDING\"],\"return_code\":{\"set\":true,\"number\":0}}",
          "\"42\"",
          "\"1.5\"",
          "\"\\u00e9t\\u00e9\"",
          "\"\\ud83d\\ude00\"",
          "\"\\ud800\"",
          "\"caf\u00e9 \ud83d\ude00\"",
          "\"tab\\there\"",
          "\"a\\/b\"",
          "\"gres:gpu:2\"",
          "\"gres/gpu=2, gres/nic:1,license/x=1\"",
          "\",,\"",
          "65534",
          "65535");

  /** {@code errors} arrays (and what is no array), as raw JSON text. */
  static final List<String> ERRORS =
      List.of(
          "[]",
          "[{\"error_number\":0}]",
          "[{\"error_number\":2017,\"error\":\"Invalid job\"}]",
          "[{\"errno\":-1,\"error\":\"Unspecified error\"}]",
          "[{\"error_code\":5}]",
          "[{\"error_number\":null,\"errno\":3}]",
          "[{\"error_number\":\"7\",\"errno\":0}]",
          "[{\"error_number\":1.5}]",
          "[{\"error_number\":0.4}]",
          "[{\"error_number\":1e10}]",
          "[{\"error_number\":99999999999}]",
          "[{\"error_number\":{\"set\":true,\"number\":5}}]",
          "[{\"error_number\":0},{\"description\":\"x\",\"error_number\":1007}]",
          "[{\"error_number\":2042,\"errno\":0}]",
          "[{\"error_number\":-1}]",
          "[{\"error_number\":6001,\"description\":\"expired\"}]",
          "[{\"error_number\":1800}]",
          "[{\"error_number\":2,\"error_number\":0}]",
          "[{\"error_number\":0,\"error_number\":9}]",
          "{\"a\":{\"errno\":1},\"a\":{\"errno\":0}}",
          "{\"a\":{\"errno\":0},\"b\":{\"errno\":2}}",
          "\"text\"",
          "1",
          "null",
          "[1,\"a\",null,[],[{\"errno\":1}]]",
          "[{\"description\":\"only text\"}]");

  /** {@code warnings}, as raw JSON text. */
  static final List<String> WARNINGS =
      List.of(
          "[{\"description\":\"No job changes since update_time[1763700000]\"}]",
          "[{\"description\":\"something else\"}]",
          "[\"No job changes\"]",
          "\"x\"",
          "null");

  /** {@code last_update}, as raw JSON text. */
  static final List<String> LAST_UPDATES =
      List.of(
          "null",
          "0",
          "12345",
          "{\"set\":false,\"infinite\":false,\"number\":5}",
          "{\"set\":true,\"infinite\":true,\"number\":5}",
          "\"x\"");

  /** Byte sequences, malformed UTF-8 but for the last two (é, an emoji). */
  static final List<byte[]> BYTES =
      List.of(
          bytes(0xC3, 0x28),
          bytes(0xC0, 0xAF),
          bytes(0xC1, 0xAA),
          bytes(0xE0, 0x80, 0xAF),
          bytes(0xED, 0xA0, 0x80),
          bytes(0xF4, 0x90, 0x80, 0x80),
          bytes(0xF5, 0x80, 0x80, 0x80),
          bytes(0x80),
          bytes(0xFF),
          bytes(0xE2, 0x82),
          bytes(0xC3, 0xA9),
          bytes(0xF0, 0x9F, 0x98, 0x80));

  /** Whole bodies that are no JSON object or broken JSON. */
  static final List<String> BODIES =
      List.of(
          "",
          "   ",
          "null",
          "[]",
          "[1,2",
          "123",
          "123abc",
          "\"str\"",
          "{",
          "<html>",
          "{\"jobs\":[}",
          "{\"jobs\":[{\"job_id\":1,}]}",
          "{\"jobs\":[{\"job_id\":1}]",
          "{'jobs':[]}",
          "{\"jobs\":[]} x",
          "{\"jobs\":[NaN]}",
          "{\"jobs\":[{\"job_id\":01}]}",
          "{\"jobs\":[{\"name\":\"a\tb\"}]}",
          "{\"jobs\":[{\"job_id\":" + "9".repeat(1001) + "}]}");
}
