package dev.tandem.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.temporal.common.converter.JacksonJsonPayloadConverter;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** Table or JSON output, and time formatting, shared by the commands. */
final class Output {
  private Output() {}

  enum Format {
    table,
    json
  }

  static final ObjectMapper JSON =
      JacksonJsonPayloadConverter.newDefaultObjectMapper()
          .enable(SerializationFeature.INDENT_OUTPUT);

  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss'Z'").withZone(ZoneOffset.UTC);

  static String json(Object o) {
    try {
      return JSON.writeValueAsString(o);
    } catch (Exception e) {
      throw new CliException("cannot render JSON: " + e.getMessage());
    }
  }

  static String time(Instant t) {
    return t == null ? "-" : TIME.format(t);
  }
}
