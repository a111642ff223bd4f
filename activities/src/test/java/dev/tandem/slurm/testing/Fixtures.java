package dev.tandem.slurm.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** The canned slurmrestd answers of one API version, by file name. */
public final class Fixtures {
  private static final ObjectMapper JSON = new ObjectMapper();

  private Fixtures() {}

  /** Every {@code *.json} under {@code /slurm/<version>/}, e.g. {@code v0.0.38}, sorted. */
  public static List<String> names(String version) {
    try (Stream<Path> files =
        Files.list(Path.of(Fixtures.class.getResource("/slurm/" + version).toURI()))) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".json"))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  public static String text(String version, String name) {
    return FakeSlurmTransport.resource("/slurm/" + version + "/" + name);
  }

  /**
   * {@code fixture}'s jobs repeated to {@code count} jobs with ids from 1000 (and names to match).
   */
  public static String replicate(String fixture, int count) {
    ObjectNode root = (ObjectNode) tree(fixture);
    ArrayNode jobs = (ArrayNode) root.get("jobs");
    List<JsonNode> originals = new ArrayList<>();
    jobs.forEach(originals::add);
    jobs.removeAll();
    for (int i = 0; i < count; i++) {
      ObjectNode j = ((ObjectNode) originals.get(i % originals.size())).deepCopy();
      j.put("job_id", 1000 + i);
      j.put("name", "tandem-pod-u" + i);
      j.put("comment", "tandem.dev/pod-uid=u" + i);
      jobs.add(j);
    }
    return prettySlurm(root);
  }

  /** Pretty-printed with {@code \/} escapes, as 22.05's slurmrestd writes. */
  private static String prettySlurm(ObjectNode root) {
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root).replace("/", "\\/");
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static JsonNode tree(String s) {
    try {
      return JSON.readTree(s);
    } catch (Exception e) {
      throw new IllegalArgumentException(e);
    }
  }
}
