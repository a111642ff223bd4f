package dev.tandem.k8s;

import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import java.util.List;

/**
 * Checks {@code spec.template} beyond what the CRD's shallow schema says (the CRD deliberately
 * keeps the template's own schema out; see NodeSetSpec). Only what every slurmd pod needs is
 * checked here; the API server validates the rest when the pod is created.
 */
final class TemplateCheck {
  private TemplateCheck() {}

  static final String PATH = "spec.template";

  /** The canonical template, or null if it cannot be used at all; problems are added. */
  static JsonNode check(JsonNode template, List<String> problems) {
    if (template == null) {
      problems.add(
          PATH + ": missing; set a pod template with at least one container (name and image)");
      return null;
    }
    if (!template.isObject()) {
      problems.add(
          PATH + ": " + SpecText.quote(template) + " is not a pod template (an object with spec)");
      return null;
    }
    try {
      Json.MAPPER.treeToValue(template, PodTemplateSpec.class);
    } catch (JsonMappingException e) {
      problems.add(path(e) + ": cannot be read as part of a pod template: " + firstLine(e));
      return null;
    } catch (com.fasterxml.jackson.core.JsonProcessingException | IllegalArgumentException e) {
      problems.add(PATH + ": cannot be read as a pod template: " + firstLine(e));
      return null;
    }
    TemplateFields.typos(template, problems);
    JsonNode spec = SpecText.member(template, "spec");
    if (spec == null || !spec.isObject()) {
      problems.add(PATH + ".spec: missing; set the pod spec with the slurmd container");
      return Revisions.canonical(template);
    }
    JsonNode containers = SpecText.member(spec, "containers");
    if (containers == null || !containers.isArray() || containers.isEmpty()) {
      problems.add(
          PATH + ".spec.containers: empty; add the slurmd container with a name and an image");
    } else {
      for (int i = 0; i < containers.size(); i++) {
        JsonNode c = containers.get(i);
        String p = PATH + ".spec.containers[" + i + "]";
        if (blank(SpecText.member(c, "name"))) {
          problems.add(p + ".name: missing; give the container a name, e.g. slurmd");
        }
        if (blank(SpecText.member(c, "image"))) {
          problems.add(p + ".image: missing; set the image, e.g. a slurmd image");
        }
      }
    }
    return Revisions.canonical(template);
  }

  private static boolean blank(JsonNode v) {
    return v == null || !v.isTextual() || v.asText().isBlank();
  }

  /** {@code spec.template.spec.containers[0].ports} from Jackson's reference chain. */
  private static String path(JsonMappingException e) {
    StringBuilder b = new StringBuilder(PATH);
    for (JsonMappingException.Reference r : e.getPath()) {
      if (r.getFieldName() != null) {
        b.append('.').append(r.getFieldName());
      } else if (r.getIndex() >= 0) {
        b.append('[').append(r.getIndex()).append(']');
      }
    }
    return b.toString();
  }

  private static String firstLine(Exception e) {
    String m =
        e instanceof JsonMappingException
            ? ((JsonMappingException) e).getOriginalMessage()
            : e.getMessage();
    if (m == null) {
      return e.getClass().getSimpleName();
    }
    int nl = m.indexOf('\n');
    String line = nl < 0 ? m : m.substring(0, nl);
    return line.length() <= 160 ? line : line.substring(0, 157) + "...";
  }
}
