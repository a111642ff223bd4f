package dev.tandem.workflows.schedule;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.tandem.workflows.model.Tuning;

/**
 * Start (or continue-as-new) arguments of {@link PodScheduleWorkflow}.
 *
 * @param pod the pod as the watcher saw it
 * @param config how pods map to jobs
 * @param tuning timers: {@code pollSeconds} while submitting, binding or evicting; {@code
 *     resyncSeconds} while pending or running (the Slurm and pod watchers signal changes; the timer
 *     covers lost signals)
 * @param state carried state on continue-as-new, else null
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record PodScheduleInput(
    PodRequest pod, SchedulingConfig config, Tuning tuning, PodScheduleState state) {}
