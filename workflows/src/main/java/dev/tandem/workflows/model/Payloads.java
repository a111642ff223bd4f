package dev.tandem.workflows.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.ByteString;
import io.temporal.api.common.v1.Payload;
import io.temporal.common.converter.EncodingKeys;
import io.temporal.common.converter.JacksonJsonPayloadConverter;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Lenient reading of signal payloads into records.
 *
 * <p>Anyone with the Temporal CLI can signal a workflow with any bytes. Every signal comes in
 * through {@code SignalInbox}, which reads the raw payload as JSON here ({@link #json}) and then
 * into the signal's type ({@link #convert}). Each signal parameter record reads itself through
 * {@link #read} (a delegating {@code @JsonCreator}), which never fails:
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
 * <p>The inbox then records the rejection where users look (the node's timeline, the NodeSet's
 * status query) and acts on nothing ({@link Lenient}). Deterministic: it depends on the payload
 * only.
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

  /** For whole payloads: one JSON value, nothing after it. */
  private static final ObjectMapper STRICT =
      MAPPER.copy().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

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

  /**
   * The JSON value of a signal's raw payload, or null for none or a null ({@code binary/null}).
   *
   * @throws IllegalArgumentException saying why it is not JSON: another encoding, bytes that are
   *     not UTF-8, text that does not parse as one JSON value
   */
  public static JsonNode json(Payload p) {
    if (p == null) {
      return null;
    }
    ByteString e = p.getMetadataMap().get(EncodingKeys.METADATA_ENCODING_KEY);
    String encoding = e == null ? null : e.toStringUtf8();
    if ("binary/null".equals(encoding)) {
      return null;
    }
    if (!"json/plain".equals(encoding)) {
      throw new IllegalArgumentException(
          "payload is not JSON: encoding "
              + (encoding == null ? "missing" : abbreviate(encoding))
              + " ("
              + p.getData().size()
              + " bytes), expected json/plain");
    }
    String text;
    try {
      text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(p.getData().asReadOnlyByteBuffer())
              .toString();
    } catch (CharacterCodingException x) {
      throw new IllegalArgumentException(
          "payload is not UTF-8 text (" + p.getData().size() + " bytes)");
    }
    try {
      JsonNode n = STRICT.readTree(text);
      return n == null || n.isMissingNode() ? null : n;
    } catch (java.io.IOException x) {
      throw new IllegalArgumentException(
          "payload is not JSON: " + abbreviate(firstLine(x)) + ", got: " + abbreviate(text));
    }
  }

  /**
   * {@code n} as {@code type}, as Temporal's converter would read it (a {@link Lenient} record
   * never fails).
   *
   * @throws IllegalArgumentException saying why it does not fit
   */
  public static Object convert(JsonNode n, java.lang.reflect.Type type) {
    try {
      return MAPPER.readerFor(MAPPER.getTypeFactory().constructType(type)).readValue(n);
    } catch (java.io.IOException | RuntimeException x) {
      throw new IllegalArgumentException(
          "payload does not fit "
              + MAPPER.getTypeFactory().constructType(type).getRawClass().getSimpleName()
              + ": "
              + abbreviate(firstLine(x)));
    }
  }

  /** A parser's complaint without its location and source excerpt. */
  private static String firstLine(Exception x) {
    String m =
        x instanceof JsonProcessingException j
            ? j.getOriginalMessage()
            : String.valueOf(x.getMessage());
    return m.lines().findFirst().orElse("");
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
