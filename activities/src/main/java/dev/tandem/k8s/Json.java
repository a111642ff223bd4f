package dev.tandem.k8s;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/**
 * One Jackson mapper configured the way fabric8 configures its own (the static {@code Json.MAPPER}
 * is deprecated): {@link KubernetesSerialization} registers its modules into the mapper it is
 * given, and the mapper stays usable directly for trees.
 */
public final class Json {
  private Json() {}

  public static final ObjectMapper MAPPER = new ObjectMapper();

  public static final KubernetesSerialization SERIALIZATION =
      new KubernetesSerialization(MAPPER, true);
}
