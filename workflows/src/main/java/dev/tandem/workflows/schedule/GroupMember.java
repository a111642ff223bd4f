package dev.tandem.workflows.schedule;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.workflows.model.Lenient;
import dev.tandem.workflows.model.Payloads;
import dev.tandem.workflows.model.PodView;

/**
 * Payload of signal {@code memberObserved}: one pod of a gang as the pod watcher sees it.
 *
 * @param request the pod as for a single pod ({@link PodRequest}); its name and uid identify the
 *     member. When the pod is deleted the watcher sends its last request with an absent view.
 * @param view the pod's current state; null or not existing = the member is gone
 * @param rejected why the payload is unusable (see {@link Payloads}), or null
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record GroupMember(
    PodRequest request, PodView view, @JsonInclude(JsonInclude.Include.NON_NULL) String rejected)
    implements Lenient {

  public GroupMember(PodRequest request, PodView view) {
    this(request, view, null);
  }

  /** Accepts any JSON; see {@link Payloads}. */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static GroupMember fromJson(JsonNode n) {
    GroupMember m = Payloads.read(n, GroupMember.class, why -> new GroupMember(null, null, why));
    if (m.rejected() == null
        && (m.request() == null || m.request().name() == null || m.request().uid() == null)) {
      return new GroupMember(null, null, "\"request\" with the pod's name and uid is required");
    }
    if (m.rejected() == null && m.view() != null && m.view().rejected() != null) {
      // PodView reads itself leniently: its own rejection makes the whole member unusable.
      return new GroupMember(null, null, "\"view\": " + m.view().rejected());
    }
    return m;
  }
}
