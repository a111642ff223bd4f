package dev.tandem.workflows.schedule;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.tandem.workflows.model.Tuning;

/**
 * Start (or continue-as-new) arguments of {@link PodGroupWorkflow}.
 *
 * @param namespace the members' namespace
 * @param group the value of their {@code tandem.dev/pod-group} annotation
 * @param config how pods map to jobs
 * @param tuning timers: {@code pollSeconds} while submitting, binding or ending; {@code
 *     resyncSeconds} while gathering, invalid, pending or running
 * @param state carried state on continue-as-new, else null
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record PodGroupInput(
    String namespace, String group, SchedulingConfig config, Tuning tuning, PodGroupState state) {

  /** {@code <ns>/<group>} */
  public String ref() {
    return namespace + "/" + group;
  }
}
