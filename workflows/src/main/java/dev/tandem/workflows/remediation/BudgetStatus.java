package dev.tandem.workflows.remediation;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.tandem.workflows.model.TimelineEntry;
import java.time.Instant;
import java.util.List;

/**
 * Query answer of {@code remediation-budget}: who holds a slot and who waits, in order.
 *
 * @param holders nodes with a slot, in the order they got it
 * @param waiting nodes waiting for a slot, in line order
 * @param recent the last nodes that gave their slot back (newest last, bounded)
 * @param rejectedSignals the latest signals whose payload could not be used (oldest first)
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record BudgetStatus(
    List<Entry> holders,
    List<Entry> waiting,
    List<Entry> recent,
    List<TimelineEntry> rejectedSignals) {

  public BudgetStatus(List<Entry> holders, List<Entry> waiting, List<Entry> recent) {
    this(holders, waiting, recent, null);
  }

  /**
   * @param request what the node asked for
   * @param since when it got its slot (holders), asked (waiting) or gave it back (recent)
   * @param note why it waits (e.g. {@code NodeSet default/gpu-a full: 1/1}) or how it ended
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Entry(SlotRequest request, Instant since, String note) {}

  public BudgetStatus {
    holders = holders == null ? List.of() : List.copyOf(holders);
    waiting = waiting == null ? List.of() : List.copyOf(waiting);
    recent = recent == null ? List.of() : List.copyOf(recent);
    rejectedSignals = rejectedSignals == null ? List.of() : List.copyOf(rejectedSignals);
  }
}
