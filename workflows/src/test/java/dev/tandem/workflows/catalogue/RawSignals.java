package dev.tandem.workflows.catalogue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import dev.tandem.workflows.support.Requires;
import dev.tandem.workflows.support.SignalInbox;
import io.temporal.api.common.v1.Payload;
import io.temporal.client.WorkflowClient;
import io.temporal.common.converter.RawValue;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.workflow.SignalMethod;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.LoggerFactory;

/**
 * The payloads no signal may drop (docs/reliability.md, "Signals"), sent through the SDK as raw
 * payloads, as {@code temporal workflow signal} or any other client can: JSON that does not parse,
 * binary ({@code binary/plain}), {@code json/plain} bytes that are not UTF-8, and for each member a
 * signal {@link Requires} a valid payload without it. Every signal method of a workflow interface
 * with a payload gets every case; a signal missing from the examples fails the test.
 *
 * <p>Each case must end as exactly one rejection the user sees, with the expected text, and exactly
 * one line in the worker log; replaying the workflow's history must log nothing more.
 */
final class RawSignals implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A drain cut off mid-way. */
  static final String MALFORMED = "{\"owner\":\"manual\",\"reason\":";

  static final byte[] BINARY = {(byte) 0xff, (byte) 0xfe, 0x00, 0x01};

  /** A JSON string whose middle byte is not UTF-8. */
  static final byte[] NOT_UTF8 = {'"', (byte) 0xc3, '"'};

  /** One payload and the rejection it must give, as the user sees it. */
  record Case(String signal, Payload payload, String expected) {}

  private final WorkflowClient client;
  private final String workflowId;
  private final Logger logger = (Logger) LoggerFactory.getLogger(SignalInbox.class);
  private final ListAppender<ILoggingEvent> log = new ListAppender<>();

  RawSignals(WorkflowClient client, String workflowId) {
    this.client = client;
    this.workflowId = workflowId;
    log.start();
    logger.addAppender(log);
  }

  @Override
  public void close() {
    logger.detachAppender(log);
  }

  static Payload payload(String encoding, byte[] data) {
    return Payload.newBuilder()
        .putMetadata("encoding", ByteString.copyFromUtf8(encoding))
        .setData(ByteString.copyFrom(data))
        .build();
  }

  static Payload json(String text) {
    return payload("json/plain", text.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Every case for every signal of {@code workflowInterface} that takes a payload; {@code examples}
   * holds a valid payload (JSON) per signal name.
   */
  static List<Case> cases(Class<?> workflowInterface, Map<String, String> examples)
      throws Exception {
    List<Case> cases = new ArrayList<>();
    for (Method m : workflowInterface.getMethods()) {
      SignalMethod sm = m.getAnnotation(SignalMethod.class);
      if (sm == null || m.getParameterCount() == 0) {
        continue;
      }
      String s = sm.name();
      assertTrue(examples.containsKey(s), "no example payload for signal " + s);
      cases.add(
          new Case(
              s,
              json(MALFORMED),
              s
                  + ": payload is not JSON: Unexpected end-of-input within/between Object entries"
                  + ", got: "
                  + MALFORMED));
      cases.add(
          new Case(
              s,
              payload("binary/plain", BINARY),
              s + ": payload is not JSON: encoding binary/plain (4 bytes), expected json/plain"));
      cases.add(
          new Case(
              s, payload("json/plain", NOT_UTF8), s + ": payload is not UTF-8 text (3 bytes)"));
      Requires r = m.getAnnotation(Requires.class);
      for (String field : r == null ? new String[0] : r.value()) {
        ObjectNode without = (ObjectNode) JSON.readTree(examples.get(s));
        String[] path = field.split("\\.");
        ObjectNode parent = without;
        for (int i = 0; i < path.length - 1; i++) {
          parent = (ObjectNode) parent.get(path[i]);
        }
        assertTrue(parent.has(path[path.length - 1]), s + " example lacks " + field);
        parent.remove(path[path.length - 1]);
        cases.add(new Case(s, json(without.toString()), s + ": \"" + field + "\" is required"));
      }
    }
    return cases;
  }

  /**
   * Sends each case and checks that {@code rejections} (what the user sees, oldest first) ends with
   * its text, and that the worker logged it once; {@code settle} lets the workflow take it.
   */
  void sendAll(List<Case> cases, Supplier<List<String>> rejections, Runnable settle) {
    for (Case c : cases) {
      int logged = log.list.size();
      client.newUntypedWorkflowStub(workflowId).signal(c.signal(), new RawValue(c.payload()));
      settle.run();
      List<String> seen = rejections.get();
      assertFalse(seen.isEmpty(), "no rejection for " + c);
      String last = seen.get(seen.size() - 1);
      if (c.expected().endsWith("\" is required")) {
        // The payload's own reading may say it first, and more: "owner" is required (one of ...),
        // "request" with the pod's name and uid is required.
        String field = c.expected().substring(c.signal().length() + 3).split("[\".]")[0];
        assertTrue(
            last.startsWith(c.signal() + ": \"" + field) && last.contains("required"),
            c.expected() + " expected, got " + last);
      } else {
        assertEquals(c.expected(), last, "for " + c);
      }
      assertEquals(1, logLines(logged, last), "log lines for " + last);
    }
  }

  /**
   * The worker log's lines from the {@code from}th on for this workflow that carry {@code detail}.
   */
  private long logLines(int from, String detail) {
    return log.list.subList(from, log.list.size()).stream()
        .map(ILoggingEvent::getFormattedMessage)
        .filter(m -> m.contains(workflowId) && m.endsWith(detail))
        .count();
  }

  /** Replays the workflow's history so far: it must log no rejection again. */
  void replayLogsNothing(Class<?> workflowImpl) throws Exception {
    int before = log.list.size();
    WorkflowReplayer.replayWorkflowExecution(client.fetchHistory(workflowId), workflowImpl);
    assertEquals(before, log.list.size(), "lines logged on replay");
  }
}
