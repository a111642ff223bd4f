package dev.tandem.bench;

import dev.tandem.workflows.Names;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.common.WorkflowExecutionHistory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Workflow tasks the server refused or that timed out, read from the pods' scheduling workflow
 * histories after a {@code tandem bench scheduling} run. Each costs the worker a replay of the
 * pod's whole history (a refused completion: {@code WorkflowTaskFailed}, cause {@code
 * UNHANDLED_COMMAND} when a signal arrived while the task completed the run), so they are part of a
 * pod's cost. The histories count every one, whatever the worker logged.
 *
 * <p>Only each pod's latest run is read: a bench pod's workflow lives for seconds and never
 * continues as new. A pod whose history cannot be fetched is counted as such, never as clean.
 */
public final class RefusedTasks {
  /** One part's count: pods read, pods with a failed or timed-out task, and tasks by cause. */
  public record Count(
      int pods, int unreadable, List<String> podsWithFailures, Map<String, Integer> causes) {
    public int tasks() {
      return causes.values().stream().mapToInt(Integer::intValue).sum();
    }

    String describe(String part) {
      StringBuilder b =
          new StringBuilder(
              String.format(
                  Locale.ROOT,
                  "  %s: %d of %d pods, %d tasks",
                  part,
                  podsWithFailures.size(),
                  pods,
                  tasks()));
      if (!causes.isEmpty()) {
        b.append(" ").append(causes);
      }
      if (unreadable > 0) {
        b.append(String.format(Locale.ROOT, "; %d histories could not be read", unreadable));
      }
      return b.toString();
    }
  }

  private final WorkflowClient temporal;

  public RefusedTasks(WorkflowClient temporal) {
    this.temporal = temporal;
  }

  /**
   * Counts one part's pods ({@code ns/name} → uid). With {@code dir} set, writes the history of
   * every pod with a failed or timed-out task there, as {@code <name>.json}.
   */
  public Count count(Map<String, String> pods, Path dir) throws IOException {
    Map<String, Integer> causes = new TreeMap<>();
    List<String> failed = new ArrayList<>();
    int unreadable = 0;
    for (Map.Entry<String, String> e : new TreeMap<>(pods).entrySet()) {
      String[] nsName = e.getKey().split("/", 2);
      String id = Names.scheduleWorkflowId(nsName[0], nsName[1], e.getValue());
      WorkflowExecutionHistory h;
      try {
        h = temporal.fetchHistory(id);
      } catch (RuntimeException ex) {
        unreadable++;
        continue;
      }
      boolean any = false;
      for (HistoryEvent ev : h.getHistory().getEventsList()) {
        String cause = cause(ev);
        if (cause != null) {
          causes.merge(cause, 1, Integer::sum);
          any = true;
        }
      }
      if (any) {
        failed.add(nsName[1]);
        if (dir != null) {
          Files.createDirectories(dir);
          Files.writeString(dir.resolve(nsName[1] + ".json"), h.toJson(true));
        }
      }
    }
    return new Count(pods.size(), unreadable, failed, causes);
  }

  /** The failure's cause ("UNHANDLED_COMMAND", "timed out"), or null for any other event. */
  static String cause(HistoryEvent ev) {
    if (ev.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED) {
      return ev.getWorkflowTaskFailedEventAttributes()
          .getCause()
          .name()
          .replace("WORKFLOW_TASK_FAILED_CAUSE_", "");
    }
    if (ev.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT) {
      return "timed out";
    }
    return null;
  }

  /** Counts every part and prints one line each under a heading; returns the counts by part. */
  public Map<String, Count> report(
      Map<String, Map<String, String>> parts, Path dir, java.io.PrintWriter out)
      throws IOException {
    Map<String, Count> counts = new java.util.LinkedHashMap<>();
    out.println("workflow tasks refused or timed out (from the pods' histories):");
    for (Map.Entry<String, Map<String, String>> p : parts.entrySet()) {
      Count c = count(p.getValue(), dir);
      counts.put(p.getKey(), c);
      out.println(c.describe(p.getKey()));
    }
    out.flush();
    return counts;
  }
}
