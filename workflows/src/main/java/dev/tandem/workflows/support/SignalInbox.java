package dev.tandem.workflows.support;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.workflows.model.Lenient;
import dev.tandem.workflows.model.Payloads;
import io.temporal.api.common.v1.Payload;
import io.temporal.common.converter.EncodedValues;
import io.temporal.common.converter.RawValue;
import io.temporal.workflow.DynamicSignalHandler;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.Workflow;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.slf4j.Logger;

/**
 * Where every public signal of a Tandem workflow comes in (docs/reliability.md, "Signals").
 *
 * <p>The SDK decodes a typed signal handler's payload before any workflow code runs, and drops
 * (with a stack trace, again on every replay) one it cannot decode: bytes that are not JSON, or not
 * UTF-8, or binary. So no workflow implementation declares a signal method to the SDK: each
 * implements its workflow interface's parent that holds the workflow method and the queries (e.g.
 * {@code NodeLifecycleRun}), and opens an inbox, which takes every signal as a raw payload. The
 * senders keep the workflow interface with its {@link SignalMethod}s and send typed objects or any
 * JSON, as before.
 *
 * <p>For each signal the inbox finds the workflow interface's method of that name and:
 *
 * <ol>
 *   <li>reads the payload: {@code json/plain} in UTF-8 that parses as one JSON value; {@code
 *       binary/null} (a null) and no payload at all are "empty";
 *   <li>turns the JSON into the method's parameter type; the model's records read leniently ({@link
 *       Payloads}) and say what is wrong ({@link Lenient#rejected()});
 *   <li>checks the members the method {@link Requires};
 *   <li>calls the implementation's method of the same name with the value, or, for a payload that
 *       cannot be used, records {@code "<signal>: <why>"} where the workflow's users look (the
 *       rejection sink) and logs it once: not again on replay (the workflow logger is
 *       replay-aware), never with a stack trace. A rejection changes no state but that record and
 *       wakes nothing.
 * </ol>
 *
 * <p>A signal of a name the workflow does not take is rejected the same way (the SDK would buffer
 * it, unseen). Deterministic: it depends on the payload only.
 */
public final class SignalInbox implements DynamicSignalHandler {
  private static final Logger log = Workflow.getLogger(SignalInbox.class);

  private final Object handlers;
  private final Consumer<String> rejected;
  private final Map<String, Method> signals = new TreeMap<>();
  private final Map<String, Method> targets = new TreeMap<>();

  private SignalInbox(Class<?> workflowInterface, Object handlers, Consumer<String> rejected) {
    this.handlers = handlers;
    this.rejected = rejected;
    List<String> missing = new ArrayList<>();
    for (Method m : workflowInterface.getMethods()) {
      SignalMethod sm = m.getAnnotation(SignalMethod.class);
      if (sm == null) {
        continue;
      }
      String name = sm.name().isEmpty() ? m.getName() : sm.name();
      signals.put(name, m);
      try {
        targets.put(name, handlers.getClass().getMethod(m.getName(), m.getParameterTypes()));
      } catch (NoSuchMethodException e) {
        missing.add(m.toString());
      }
    }
    if (!missing.isEmpty()) {
      throw new IllegalStateException(handlers.getClass() + " lacks signal methods " + missing);
    }
  }

  /**
   * Takes the signals of {@code workflowInterface} for {@code handlers}, the workflow
   * implementation (call at the end of its {@code @WorkflowInit} constructor, so that a signal sent
   * with the start finds it ready). {@code rejected} records the line {@code "<signal>: <why>"}.
   */
  public static void open(Class<?> workflowInterface, Object handlers, Consumer<String> rejected) {
    Workflow.registerListener(new SignalInbox(workflowInterface, handlers, rejected));
  }

  @Override
  public void handle(String signal, EncodedValues args) {
    Method m = signals.get(signal);
    if (m == null) {
      reject(signal + ": no such signal (this workflow takes " + signals.keySet() + ")");
      return;
    }
    Object[] values = new Object[m.getParameterCount()];
    if (values.length == 1) {
      RawValue raw = args.getSize() == 0 ? null : args.get(0, RawValue.class);
      Object v = read(m, raw == null ? null : raw.getPayload());
      if (v instanceof Rejection r) {
        reject(signal + ": " + r.why);
        return;
      }
      values[0] = v;
    }
    try {
      targets.get(signal).invoke(handlers, values);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof Error err) {
        throw err; // e.g. the SDK's own, when it ends a workflow thread
      }
      throw (RuntimeException) e.getCause(); // the workflow's methods throw nothing checked
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }

  private record Rejection(String why) {}

  /** The parameter of {@code m} from the payload, or a {@link Rejection}. */
  private static Object read(Method m, Payload p) {
    JsonNode n;
    try {
      n = Payloads.json(p);
    } catch (IllegalArgumentException e) {
      return new Rejection(e.getMessage());
    }
    if (n == null || n.isNull()) {
      return new Rejection("empty payload");
    }
    Object v;
    try {
      v = Payloads.convert(n, m.getGenericParameterTypes()[0]);
    } catch (IllegalArgumentException e) {
      return new Rejection(e.getMessage());
    }
    if (v instanceof Lenient l && l.rejected() != null) {
      return new Rejection(l.rejected());
    }
    Requires r = m.getAnnotation(Requires.class);
    List<String> missing = new ArrayList<>();
    for (String path : r == null ? new String[0] : r.value()) {
      JsonNode f = n;
      for (String part : path.split("\\.")) {
        f = f == null ? null : f.get(part);
      }
      if (f == null || f.isNull() || (f.isTextual() && f.asText().isBlank())) {
        missing.add("\"" + path + "\" is required");
      }
    }
    return missing.isEmpty() ? v : new Rejection(String.join("; ", missing));
  }

  private void reject(String detail) {
    log.warn("{}: signal rejected: {}", Workflow.getInfo().getWorkflowId(), detail);
    rejected.accept(detail);
  }
}
