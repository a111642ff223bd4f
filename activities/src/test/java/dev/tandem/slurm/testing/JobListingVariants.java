package dev.tandem.slurm.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;

/**
 * Job listings made from a captured one, for holding a streaming reader equal to the tree-based
 * code: odd values in the fields Tandem reads (raw JSON text, so {@code 1e400}, {@code -0} and big
 * integers stay as written), missing and unknown fields, repeated keys, errors and warnings, broken
 * JSON, byte order marks and malformed UTF-8. Bodies are bytes; the odd ones are not valid UTF-8.
 */
public final class JobListingVariants {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The job fields both adapters read. */
  public static final List<String> FIELDS =
      List.of(
          "job_id",
          "name",
          "comment",
          "job_state",
          "state_reason",
          "nodes",
          "partition",
          "account",
          "qos",
          "user_name",
          "restart_cnt",
          "submit_time",
          "start_time",
          "end_time",
          "preempt_time",
          "time_limit",
          "exit_code",
          "node_count",
          "minimum_cpus_per_node",
          "tres_per_node",
          "features");

  /** A variant: what was changed, and the body. */
  public record Variant(String name, byte[] body) {
    public String text() {
      return new String(body, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
      return name;
    }
  }

  private JobListingVariants() {}

  /** Every variant of {@code fixture} (a job answer, pretty-printed as slurmrestd sends it). */
  public static List<Variant> of(String fixture, long seed) {
    List<Variant> out = new ArrayList<>();
    out.add(new Variant("as captured", utf8(fixture)));
    JsonNode parsed = tree(fixture);
    if (parsed == null || !parsed.isObject()) {
      return out; // broken fixtures are variants of their own
    }
    ObjectNode root = (ObjectNode) parsed;
    out.add(new Variant("compact", utf8(root.toString())));
    structural(root, out);
    errorsAndWarnings(root, out);
    if (root.path("jobs").isArray() && !root.path("jobs").isEmpty()) {
      // One job is enough where the first job is changed: the answers stay small.
      ObjectNode one = root.deepCopy();
      ArrayNode jobs = (ArrayNode) one.get("jobs");
      while (jobs.size() > 1) {
        jobs.remove(1);
      }
      fields(one, out);
      encodings(one, out);
      mixed(root, seed, out);
    }
    broken(fixture, out);
    return out;
  }

  private static void structural(ObjectNode root, List<Variant> out) {
    for (String v : List.of("[]", "null", "{}", "{\"a\":1}", "\"x\"", "5", "[1,\"x\",null,[]]")) {
      out.add(raw("jobs=" + v, root, r -> r.put("jobs", "@RAW@"), v));
    }
    out.add(edit("no jobs key", root, r -> r.remove("jobs")));
    out.add(edit("empty object", root, r -> r.removeAll()));
    out.add(
        edit(
            "unknown fields everywhere",
            root,
            r -> {
              r.putObject("zz_root").putArray("deep").addObject().put("job_id", 5);
              r.putArray("zz_list").add(1).addArray().add("jobs");
              for (JsonNode j : r.path("jobs")) {
                if (j instanceof ObjectNode o) {
                  o.putObject("zz_job").put("job_id", 9).putObject("x").put("nodes", "bad[");
                  o.putArray("zz_arr").addObject().put("name", "inner");
                }
              }
            }));
    String body = root.toString();
    if (root.path("jobs").isArray() && !root.path("jobs").isEmpty()) {
      out.add(
          edit(
              "odd entries in jobs",
              root,
              r -> {
                ArrayNode a = (ArrayNode) r.get("jobs");
                a.add(1).add("x").addNull().add(JSON.createArrayNode().add(7));
                a.addObject();
              }));
      // Repeated keys: the last value counts in a tree.
      String first = "\"jobs\":[{";
      out.add(
          replaced("repeated job keys, first", body, first, first + dupJob("777", "dup") + ","));
      out.add(marked("repeated job keys, last", root, true, "," + dupJob("778", "late")));
    }
    out.add(marked("jobs again, empty", root, false, ",\"jobs\":[]"));
    out.add(marked("jobs again, a number", root, false, ",\"jobs\":5"));
    out.add(
        marked("jobs again, one job", root, false, ",\"jobs\":[{\"job_id\":4,\"nodes\":\"n4\"}]"));
    out.add(marked("jobs again, unreadable", root, false, ",\"jobs\":[{\"nodes\":\"n[\"}]"));
    out.add(new Variant("jobs before its repeat", utf8("{\"jobs\":5," + body.substring(1))));
  }

  private static String dupJob(String id, String name) {
    return "\"job_id\":" + id + ",\"name\":\"" + name + "\",\"nodes\":\"n[1-\",\"exit_code\":\"x\"";
  }

  private static void errorsAndWarnings(ObjectNode root, List<Variant> out) {
    for (String e : OddJson.ERRORS) {
      out.add(raw("errors=" + e, root, r -> r.put("errors", "@RAW@"), e));
    }
    out.add(marked("errors again, failing", root, false, ",\"errors\":[{\"errno\":5}]"));
    for (String w : OddJson.WARNINGS) {
      out.add(raw("warnings=" + w, root, r -> r.put("warnings", "@RAW@"), w));
      out.add(
          raw("no jobs, warnings=" + w, root, r -> r.put("warnings", "@RAW@").putArray("jobs"), w));
    }
    for (String u : OddJson.LAST_UPDATES) {
      out.add(raw("last_update=" + u, root, r -> r.put("last_update", "@RAW@"), u));
      out.add(
          raw(
              "no jobs, last_update=" + u,
              root,
              r -> r.put("last_update", "@RAW@").putArray("jobs"),
              u));
    }
    out.add(edit("no last_update", root, r -> r.remove("last_update")));
    out.add(
        edit(
            "no jobs, no last_update",
            root,
            r -> {
              r.putArray("jobs");
              r.remove("last_update");
            }));
  }

  /** Each field of the first job: removed, and set to each odd value. */
  private static void fields(ObjectNode root, List<Variant> out) {
    for (String f : FIELDS) {
      out.add(edit("first job without " + f, root, r -> firstJob(r).remove(f)));
      for (String v : OddJson.VALUES) {
        out.add(raw(f + "=" + v, root, r -> firstJob(r).put(f, "@RAW@"), v));
      }
    }
  }

  /** Odd values in random fields of every job. */
  private static void mixed(ObjectNode root, long seed, List<Variant> out) {
    for (int round = 0; round < 40; round++) {
      Random rnd = new Random(seed * 1000 + round);
      ObjectNode copy = root.deepCopy();
      List<String> raws = new ArrayList<>();
      for (JsonNode j : copy.path("jobs")) {
        for (int k = 0; k < 4; k++) {
          String f = FIELDS.get(rnd.nextInt(FIELDS.size()));
          if (rnd.nextInt(5) == 0) {
            ((ObjectNode) j).remove(f);
          } else {
            ((ObjectNode) j).put(f, "@RAW" + raws.size() + "@");
            raws.add(OddJson.VALUES.get(rnd.nextInt(OddJson.VALUES.size())));
          }
        }
      }
      String body = copy.toString();
      for (int i = 0; i < raws.size(); i++) {
        body = body.replace("\"@RAW" + i + "@\"", raws.get(i));
      }
      out.add(new Variant("mixed " + seed + "/" + round, utf8(body)));
    }
  }

  /** Byte order marks and malformed UTF-8, in a field Tandem reads, one it skips, and a key. */
  private static void encodings(ObjectNode root, List<Variant> out) {
    String body = root.toString();
    byte[] plain = utf8(body);
    out.add(
        new Variant(
            "byte order mark", concat(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}, plain)));
    out.add(new Variant("UTF-16", body.getBytes(StandardCharsets.UTF_16LE)));
    List<byte[]> bad = OddJson.BYTES;
    for (int i = 0; i < bad.size(); i++) {
      for (String key : List.of("name", "comment", "nodes", "job_state", "standard_output", "zz")) {
        ObjectNode copy = root.deepCopy();
        firstJob(copy).put(key, "a@BAD@b");
        out.add(
            new Variant("bytes " + i + " in " + key, splice(copy.toString(), "@BAD@", bad.get(i))));
      }
      ObjectNode copy = root.deepCopy();
      firstJob(copy).put("@BAD@ob_id", 5);
      out.add(
          new Variant("bytes " + i + " in a key", splice(copy.toString(), "@BAD@", bad.get(i))));
    }
    // 'j' written as the overlong C1 AA: a lenient decoder reads "job_id".
    ObjectNode copy = root.deepCopy();
    firstJob(copy).remove("job_id");
    firstJob(copy).put("@BAD@ob_id", 5);
    out.add(
        new Variant("overlong job_id key", splice(copy.toString(), "@BAD@", bytes(0xC1, 0xAA))));
  }

  /** Broken JSON: cut short, trailing and leading junk, and answers that are not objects. */
  private static void broken(String fixture, List<Variant> out) {
    int n = fixture.length();
    for (int i = 1; i <= 12; i++) {
      out.add(new Variant("cut at " + i + "/13", utf8(fixture.substring(0, n * i / 13))));
    }
    for (String tail : List.of(" trailing", "}", ",", "{\"jobs\":5}", "]")) {
      out.add(new Variant("followed by " + tail, utf8(fixture + tail)));
    }
    for (String s : OddJson.BODIES) {
      out.add(new Variant("body " + s, utf8(s)));
    }
    out.add(new Variant("leading junk", utf8("x" + fixture)));
  }

  // ---------------------------------------------------------------- helpers

  private static ObjectNode firstJob(ObjectNode root) {
    return (ObjectNode) root.get("jobs").get(0);
  }

  private static Variant edit(String name, ObjectNode root, Consumer<ObjectNode> change) {
    ObjectNode copy = root.deepCopy();
    change.accept(copy);
    return new Variant(name, utf8(copy.toString()));
  }

  /** {@code change} puts the text "@RAW@" where {@code rawJson} goes. */
  private static Variant raw(
      String name, ObjectNode root, Consumer<ObjectNode> change, String rawJson) {
    ObjectNode copy = root.deepCopy();
    change.accept(copy);
    return new Variant(name, utf8(copy.toString().replace("\"@RAW@\"", rawJson)));
  }

  /** Appends raw text at the end of the first job ({@code inJob}) or of the top level. */
  private static Variant marked(String name, ObjectNode root, boolean inJob, String rawFields) {
    ObjectNode copy = root.deepCopy();
    (inJob ? firstJob(copy) : copy).put("zz_marker", 0);
    return new Variant(name, utf8(copy.toString().replace(",\"zz_marker\":0", rawFields)));
  }

  private static Variant replaced(String name, String body, String what, String with) {
    return new Variant(name, utf8(body.replaceFirst(java.util.regex.Pattern.quote(what), with)));
  }

  private static JsonNode tree(String s) {
    try {
      return JSON.readTree(s);
    } catch (Exception e) {
      return null;
    }
  }

  private static byte[] splice(String text, String marker, byte[] bytes) {
    int at = text.indexOf(marker);
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    b.writeBytes(utf8(text.substring(0, at)));
    b.writeBytes(bytes);
    b.writeBytes(utf8(text.substring(at + marker.length())));
    return b.toByteArray();
  }

  static byte[] bytes(int... v) {
    byte[] b = new byte[v.length];
    for (int i = 0; i < v.length; i++) {
      b[i] = (byte) v[i];
    }
    return b;
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] c = new byte[a.length + b.length];
    System.arraycopy(a, 0, c, 0, a.length);
    System.arraycopy(b, 0, c, a.length, b.length);
    return c;
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
