package dev.tandem.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.tandem.workflows.model.TimelineLine;
import io.temporal.common.converter.JacksonJsonPayloadConverter;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

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

  /**
   * What {@code tandem history} prints for one workflow: with {@code -o json} the timeline alone;
   * else {@code header}, then the timeline as a table of TIME, the stage's column ({@code PHASE},
   * or {@code STEP} for a remediation), EVENT and DETAIL, oldest first. A null stage or text prints
   * empty.
   */
  static void history(
      PrintWriter out,
      Format format,
      String header,
      String stage,
      List<? extends TimelineLine> timeline) {
    if (format == Format.json) {
      out.println(json(timeline));
      return;
    }
    out.println(header);
    List<List<String>> rows = new ArrayList<>();
    for (TimelineLine r : timeline) {
      rows.add(
          List.of(
              time(r.at()),
              r.stageLabel() == null ? "" : r.stageLabel(),
              r.event() == null ? "" : r.event(),
              r.detail() == null ? "" : r.detail()));
    }
    out.print(Table.render(List.of("TIME", stage, "EVENT", "DETAIL"), rows));
  }
}
