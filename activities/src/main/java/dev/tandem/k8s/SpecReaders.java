package dev.tandem.k8s;

import static dev.tandem.k8s.SpecText.member;
import static dev.tandem.k8s.SpecText.quote;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.k8s.api.DrainSpec;
import dev.tandem.k8s.api.RollingUpdateSpec;
import dev.tandem.k8s.api.SlurmSpec;
import dev.tandem.workflows.model.DrainPolicy;
import dev.tandem.workflows.model.SlurmSettings;
import dev.tandem.workflows.model.TimeoutAction;
import dev.tandem.workflows.model.UpdateStrategy;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Reads {@code spec.slurm}, {@code spec.updateStrategy} and the drain policies, checking again
 * everything the CRD schema says (an API server may ignore CEL rules, and a NodeSet stored under an
 * older CRD was never checked against the current one) and adding a problem for each violation
 * instead of throwing.
 */
final class SpecReaders {
  private SpecReaders() {}

  private static final Pattern NAME = Pattern.compile(SlurmSpec.NAME_PATTERN);
  private static final Pattern GRES = Pattern.compile(SlurmSpec.GRES_PATTERN);
  private static final Pattern MAX_UNAVAILABLE =
      Pattern.compile(RollingUpdateSpec.MAX_UNAVAILABLE_PATTERN);
  private static final Pattern LABEL_KEY = Pattern.compile(RollingUpdateSpec.LABEL_KEY_PATTERN);

  /**
   * Slurm settings with partitions and features sorted and de-duplicated: their order means nothing
   * to Slurm, and must not change the revision (and roll the nodes).
   */
  static SlurmSettings slurm(JsonNode slurm, List<String> problems) {
    String path = "spec.slurm";
    if (slurm == null) {
      return SlurmSettings.none();
    }
    if (!slurm.isObject()) {
      problems.add(path + ": " + quote(slurm) + " is not an object");
      return SlurmSettings.none();
    }
    SpecText.unknownFields(
        slurm, path, Set.of("partitions", "features", "gres", "weight"), problems);
    List<String> partitions = names(member(slurm, "partitions"), path + ".partitions", problems);
    List<String> features = names(member(slurm, "features"), path + ".features", problems);
    String gres = null;
    JsonNode g = member(slurm, "gres");
    if (g != null) {
      if (!g.isTextual() || !GRES.matcher(g.asText()).matches()) {
        problems.add(
            path
                + ".gres: "
                + quote(g)
                + " is not a GRES list like gpu:h100:8 or gpu:8,nvme:1 (each entry"
                + " name[:type]:count, the count a number)");
      } else {
        gres = g.asText();
      }
    }
    Integer weight = null;
    JsonNode w = member(slurm, "weight");
    if (w != null) {
      if (!w.isIntegralNumber() || !w.canConvertToInt() || w.asInt() < 1) {
        problems.add(path + ".weight: " + quote(w) + " must be a whole number from 1");
      } else {
        weight = w.asInt();
      }
    }
    return new SlurmSettings(partitions, features, gres, weight);
  }

  private static List<String> names(JsonNode list, String path, List<String> problems) {
    TreeSet<String> out = new TreeSet<>();
    if (list == null) {
      return List.of();
    }
    if (!list.isArray()) {
      problems.add(path + ": " + quote(list) + " must be a list of names");
      return List.of();
    }
    for (int i = 0; i < list.size(); i++) {
      JsonNode v = list.get(i);
      if (!v.isTextual() || v.asText().length() > 64 || !NAME.matcher(v.asText()).matches()) {
        problems.add(
            path
                + "["
                + i
                + "]: "
                + quote(v)
                + " is not a Slurm name (letters, digits and _ . : + -, at most 64)");
      } else {
        out.add(v.asText());
      }
    }
    return List.copyOf(out);
  }

  static UpdateStrategy updateStrategy(JsonNode s, List<String> problems) {
    String path = "spec.updateStrategy";
    if (s == null) {
      return UpdateStrategy.rolling("1");
    }
    if (!s.isObject()) {
      problems.add(path + ": " + quote(s) + " is not an object");
      return UpdateStrategy.rolling("1");
    }
    SpecText.unknownFields(s, path, Set.of("type", "rollingUpdate"), problems);
    String type = UpdateStrategy.ROLLING_UPDATE;
    JsonNode t = member(s, "type");
    if (t != null) {
      if (t.isTextual()
          && (t.asText().equals(UpdateStrategy.ROLLING_UPDATE)
              || t.asText().equals(UpdateStrategy.ON_DELETE))) {
        type = t.asText();
      } else {
        problems.add(path + ".type: " + quote(t) + " must be RollingUpdate or OnDelete");
      }
    }
    JsonNode ru = member(s, "rollingUpdate");
    if (ru == null) {
      return new UpdateStrategy(type, type.equals(UpdateStrategy.ON_DELETE) ? null : "1");
    }
    if (type.equals(UpdateStrategy.ON_DELETE)) {
      problems.add(path + ".rollingUpdate: only allowed with type RollingUpdate; remove it");
      return new UpdateStrategy(type, null);
    }
    if (!ru.isObject()) {
      problems.add(path + ".rollingUpdate: " + quote(ru) + " is not an object");
      return new UpdateStrategy(type, "1");
    }
    SpecText.unknownFields(
        ru,
        path + ".rollingUpdate",
        Set.of("maxUnavailable", "topologyKey", "domainOrder"),
        problems);
    UpdateStrategy u = maxUnavailable(type, member(ru, "maxUnavailable"), problems);
    return topology(u, ru, problems);
  }

  /** {@code topologyKey} and {@code domainOrder} of {@code rollingUpdate}, on top of {@code u}. */
  private static UpdateStrategy topology(UpdateStrategy u, JsonNode ru, List<String> problems) {
    String path = "spec.updateStrategy.rollingUpdate";
    String key = null;
    JsonNode k = member(ru, "topologyKey");
    if (k != null) {
      if (!k.isTextual() || !LABEL_KEY.matcher(k.asText()).matches()) {
        problems.add(
            path
                + ".topologyKey: "
                + quote(k)
                + " is not a node label key like topology.tandem.dev/block");
      } else {
        key = k.asText();
      }
    }
    String order = null;
    JsonNode o = member(ru, "domainOrder");
    if (o != null) {
      if (o.isTextual()
          && (o.asText().equals(UpdateStrategy.IDLE_FIRST)
              || o.asText().equals(UpdateStrategy.BY_NAME))) {
        order = o.asText();
      } else {
        problems.add(path + ".domainOrder: " + quote(o) + " must be idleFirst or name");
      }
      if (k == null) {
        problems.add(path + ".domainOrder: needs topologyKey, the node label naming the domain");
      }
    }
    return key == null && order == null ? u : u.byTopology(key, order);
  }

  private static UpdateStrategy maxUnavailable(String type, JsonNode mu, List<String> problems) {
    String path = "spec.updateStrategy";
    if (mu == null) {
      return new UpdateStrategy(type, "1");
    }
    boolean ok =
        mu.isIntegralNumber()
            ? mu.canConvertToInt() && mu.asInt() >= 1
            : mu.isTextual() && MAX_UNAVAILABLE.matcher(mu.asText()).matches();
    if (!ok) {
      problems.add(
          path
              + ".rollingUpdate.maxUnavailable: "
              + quote(mu)
              + " must be a number from 1 or a percentage from 1% to 100%, like 1 or \"25%\"");
      return new UpdateStrategy(type, "1");
    }
    return new UpdateStrategy(type, mu.asText());
  }

  /** A drain policy; {@code fallback} when the object is absent. */
  static DrainPolicy drain(JsonNode d, String path, DrainPolicy fallback, List<String> problems) {
    if (d == null) {
      return fallback;
    }
    if (!d.isObject()) {
      problems.add(path + ": " + quote(d) + " is not an object");
      return fallback;
    }
    SpecText.unknownFields(d, path, Set.of("timeout", "onTimeout"), problems);
    long seconds = 0;
    JsonNode t = member(d, "timeout");
    if (t != null) {
      OptionalLong parsed =
          t.isTextual() ? Durations.parseSeconds(t.asText()) : OptionalLong.empty();
      if (parsed.isEmpty()) {
        problems.add(
            path
                + ".timeout: "
                + quote(t)
                + " is not a duration like 30m or 2h (units s, m, h, d)");
      } else if (parsed.getAsLong() == 0) {
        problems.add(
            path + ".timeout: " + quote(t) + " is zero; leave timeout unset to wait without limit");
      } else {
        seconds = parsed.getAsLong();
      }
    }
    TimeoutAction action = TimeoutAction.WAIT;
    JsonNode a = member(d, "onTimeout");
    if (a != null) {
      if (a.isTextual() && a.asText().equals(DrainSpec.OnTimeout.Force.name())) {
        action = TimeoutAction.FORCE;
      } else if (!(a.isTextual() && a.asText().equals(DrainSpec.OnTimeout.Wait.name()))) {
        problems.add(path + ".onTimeout: " + quote(a) + " must be Wait or Force");
      }
    }
    if (action == TimeoutAction.FORCE && t == null) {
      problems.add(path + ".onTimeout: Force needs a timeout, e.g. timeout: 2h");
    }
    return new DrainPolicy(seconds, action);
  }
}
