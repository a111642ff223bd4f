package dev.tandem.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** docs/install.md names only values that exist: every {@code --set a.b=...} and values block. */
class InstallDocTest {
  private static final Pattern SET =
      Pattern.compile("--set(?:-string|-file)?[ =]([A-Za-z0-9_.]+)=");

  private static final Set<String> FREE_MAPS =
      Set.of("labels", "annotations", "podLabels", "podAnnotations", "nodeSelector");

  static JsonNode values() throws IOException {
    return new YAMLMapper().readTree(Chart.DIR.resolve("values.yaml").toFile());
  }

  static boolean exists(JsonNode values, String path) {
    JsonNode n = values;
    for (String part : path.split("\\.")) {
      if (n == null || !n.isObject() || !n.has(part)) {
        return false;
      }
      if (FREE_MAPS.contains(part)) {
        return true; // any key: labels, annotations, selectors
      }
      n = n.get(part);
    }
    return true;
  }

  /** The dotted paths of every leaf of a values block. */
  static void leaves(JsonNode n, String prefix, List<String> out) {
    if (n.isObject() && n.size() > 0) {
      n.fieldNames()
          .forEachRemaining(f -> leaves(n.get(f), prefix.isEmpty() ? f : prefix + "." + f, out));
    } else {
      out.add(prefix);
    }
  }

  @Test
  void everyValueTheInstallGuideNamesExists() throws IOException {
    String doc = Chart.read(Chart.ROOT.resolve("docs/install.md"));
    JsonNode values = values();
    List<String> named = new ArrayList<>();
    Matcher m = SET.matcher(doc);
    while (m.find()) {
      named.add(m.group(1));
    }
    // ```yaml blocks whose first line is "# values" are values files.
    Matcher block =
        Pattern.compile("```yaml\\n# values[^\\n]*\\n(.*?)```", Pattern.DOTALL).matcher(doc);
    int blocks = 0;
    while (block.find()) {
      blocks++;
      leaves(new YAMLMapper().readTree(block.group(1)), "", named);
    }
    assertTrue(named.size() >= 5 && blocks >= 1, () -> "install.md names too few values: " + named);
    Set<String> unknown = new TreeSet<>();
    for (String p : named) {
      if (!exists(values, p)) {
        unknown.add(p);
      }
    }
    assertEquals(
        Set.of(), unknown, "docs/install.md names values that helm/tandem/values.yaml lacks");
  }
}
