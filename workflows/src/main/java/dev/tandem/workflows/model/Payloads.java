package dev.tandem.workflows.model;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.temporal.common.converter.JacksonJsonPayloadConverter;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Lenient reading of signal payloads into records.
 *
 * <p>Anyone with the Temporal CLI can signal a workflow with any JSON. When the SDK cannot turn a
 * payload into the handler's parameter type it logs and drops the signal: nobody looking at Tandem
 * would ever know. So each signal parameter record reads itself through {@link #read} (a delegating
 * {@code @JsonCreator}), which never fails:
 *
 * <ol>
 *   <li>A payload that is not a JSON object becomes the record's "rejected" value, saying what
 *       arrived.
 *   <li>Each record component is read from the member of the same name with Temporal's own mapper,
 *       so a valid payload reads exactly as before. A missing member or JSON null gives null (or
 *       0/false for primitives), as Jackson's record support does. Unknown members are ignored: a
 *       newer sender may add fields.
 *   <li>Every member that cannot be read is named in the rejection, with the value sent; the
 *       record's own constructor checks (e.g. a negative timeout) are reported the same way.
 * </ol>
 *
 * <p>The handler then records the rejection where users look (the node's timeline, the NodeSet's
 * status query) and acts on nothing. Deterministic: it depends on the payload only.
 */
public final class Payloads {
  private Payloads() {}

  /**
   * The mapper Temporal's default data converter uses, so valid payloads read the same; unknown
   * members of nested objects are ignored too (a newer sender may add fields).
   */
  static final ObjectMapper MAPPER =
      JacksonJsonPayloadConverter.newDefaultObjectMapper()
          .configure(
              com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES,
              false);

  /** Name of the component every lenient record carries for the rejection, skipped when read. */
  static final String REJECTED = "rejected";

  /**
   * Reads {@code type} from {@code n}; an unusable payload gives {@code rejected.apply(why)}.
   *
   * @param rejected builds the record that stands for a rejected payload
   */
  public static <R extends Record> R read(JsonNode n, Class<R> type, Function<String, R> rejected) {
    if (n == null || !n.isObject()) {
      return rejected.apply(
          "payload must be a JSON object with the fields of "
              + type.getSimpleName()
              + ", got: "
              + abbreviate(String.valueOf(n)));
    }
    RecordComponent[] cs = type.getRecordComponents();
    Object[] args = new Object[cs.length];
    Class<?>[] types = new Class<?>[cs.length];
    List<String> problems = new ArrayList<>();
    for (int i = 0; i < cs.length; i++) {
      RecordComponent c = cs[i];
      types[i] = c.getType();
      JsonNode v = n.get(c.getName());
      if (c.getName().equals(REJECTED) || v == null || v.isNull()) {
        args[i] = defaultValue(c.getType());
        continue;
      }
      try {
        JavaType t = MAPPER.getTypeFactory().constructType(c.getGenericType());
        args[i] = MAPPER.readerFor(t).readValue(v);
      } catch (java.io.IOException | RuntimeException e) {
        problems.add(
            "\""
                + c.getName()
                + "\": "
                + abbreviate(v.toString())
                + " is not "
                + describe(c.getType()));
      }
    }
    if (!problems.isEmpty()) {
      return rejected.apply(String.join("; ", problems));
    }
    try {
      Constructor<R> ctor = type.getDeclaredConstructor(types);
      return ctor.newInstance(args);
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      return rejected.apply(String.valueOf(cause.getMessage()));
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot construct " + type.getName(), e);
    }
  }

  /** A JSON text cut to a readable length for messages. */
  static String abbreviate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 77) + "...";
  }

  private static Object defaultValue(Class<?> t) {
    if (t == boolean.class) {
      return false;
    }
    if (t == int.class) {
      return 0;
    }
    if (t == long.class) {
      return 0L;
    }
    return null;
  }

  private static String describe(Class<?> t) {
    if (t == boolean.class || t == Boolean.class) {
      return "true or false";
    }
    if (t == int.class || t == Integer.class || t == long.class || t == Long.class) {
      return "a whole number";
    }
    if (t == String.class) {
      return "a string";
    }
    if (t == java.time.Instant.class) {
      return "a time like \"2025-01-31T12:00:00Z\"";
    }
    if (t.isEnum()) {
      StringBuilder b = new StringBuilder("one of ");
      Object[] values = t.getEnumConstants();
      for (int i = 0; i < values.length; i++) {
        b.append(i == 0 ? "" : ", ").append(((Enum<?>) values[i]).name());
      }
      return b.toString();
    }
    if (java.util.Collection.class.isAssignableFrom(t)) {
      return "a list";
    }
    return "a valid " + t.getSimpleName();
  }
}
