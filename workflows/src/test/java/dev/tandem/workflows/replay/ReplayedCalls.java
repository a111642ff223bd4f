package dev.tandem.workflows.replay;

import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.common.converter.DefaultDataConverter;
import io.temporal.common.interceptors.WorkerInterceptorBase;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptor;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptorBase;
import io.temporal.common.interceptors.WorkflowOutboundCallsInterceptor;
import io.temporal.common.interceptors.WorkflowOutboundCallsInterceptorBase;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The activity and local-activity types a replay asks for, in order, to compare with those its
 * history recorded. The Java SDK matches a local activity's marker by its position only, and a
 * local activity of another type in that position replays without complaint: without this check, a
 * workflow that swaps two of its local calls (most of Tandem's calls are local activities) would
 * pass {@link ReplayTest}.
 */
final class ReplayedCalls extends WorkerInterceptorBase {
  private static final String LOCAL_ACTIVITY_MARKER = "LocalActivity";

  private final List<String> asked = Collections.synchronizedList(new ArrayList<>());

  @Override
  public WorkflowInboundCallsInterceptor interceptWorkflow(WorkflowInboundCallsInterceptor next) {
    return new WorkflowInboundCallsInterceptorBase(next) {
      @Override
      public void init(WorkflowOutboundCallsInterceptor outbound) {
        super.init(
            new WorkflowOutboundCallsInterceptorBase(outbound) {
              @Override
              public <R> ActivityOutput<R> executeActivity(ActivityInput<R> input) {
                asked.add("activity " + input.getActivityName());
                return super.executeActivity(input);
              }

              @Override
              public <R> LocalActivityOutput<R> executeLocalActivity(LocalActivityInput<R> input) {
                asked.add("local activity " + input.getActivityName());
                return super.executeLocalActivity(input);
              }
            });
      }
    };
  }

  /** What the replay asked for, in order. */
  List<String> asked() {
    synchronized (asked) {
      return List.copyOf(asked);
    }
  }

  /** The activities and local activities a history recorded, in order. */
  static List<String> recorded(List<HistoryEvent> events) {
    List<String> out = new ArrayList<>();
    for (HistoryEvent e : events) {
      if (e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
        out.add(
            "activity " + e.getActivityTaskScheduledEventAttributes().getActivityType().getName());
      } else if (e.getEventType() == EventType.EVENT_TYPE_MARKER_RECORDED
          && LOCAL_ACTIVITY_MARKER.equals(e.getMarkerRecordedEventAttributes().getMarkerName())) {
        var type = e.getMarkerRecordedEventAttributes().getDetailsMap().get("type");
        out.add(
            "local activity "
                + DefaultDataConverter.STANDARD_INSTANCE.fromPayload(
                    type.getPayloads(0), String.class, String.class));
      }
    }
    return out;
  }
}
